//! What clients ask before they ask for events: `/version`, API discovery
//! (aggregated v2 when the Accept header asks for it, else the legacy
//! documents) and the OpenAPI v3 documents `kubectl create` reads to learn
//! that the server validates fields itself.
//!
//! Besides events, the common kinds events are about (pods, nodes,
//! deployments, …) are advertised with no verbs, so `kubectl events --for
//! pod/NAME` can resolve its argument; `kubectl get pods` then fails with
//! NotFound, as it should on an events-only server.

use std::sync::OnceLock;

use serde_json::{Value, json};

/// The Content-Type aggregated discovery must be answered with.
pub const AGGREGATED_CONTENT_TYPE: &str =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// The Kubernetes minor version reported; the gcloud kubectl dispatcher
/// runs the kubectl of this minor, the one hushd was tested with.
pub const KUBERNETES_MINOR: &str = "32";

const EVENT_VERBS: [&str; 8] = [
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

/// A resource served or advertised: (group, version, plural, singular, kind, short names, namespaced).
struct Resource {
    group: &'static str,
    version: &'static str,
    plural: &'static str,
    singular: &'static str,
    kind: &'static str,
    short: &'static [&'static str],
    namespaced: bool,
}

const fn r(
    group: &'static str,
    version: &'static str,
    plural: &'static str,
    singular: &'static str,
    kind: &'static str,
    short: &'static [&'static str],
    namespaced: bool,
) -> Resource {
    Resource {
        group,
        version,
        plural,
        singular,
        kind,
        short,
        namespaced,
    }
}

/// Events first (served), then the kinds events are commonly about (advertised only).
const RESOURCES: &[Resource] = &[
    r("", "v1", "events", "event", "Event", &["ev"], true),
    r("events.k8s.io", "v1", "events", "event", "Event", &[], true),
    r("", "v1", "pods", "pod", "Pod", &["po"], true),
    r("", "v1", "nodes", "node", "Node", &["no"], false),
    r(
        "",
        "v1",
        "namespaces",
        "namespace",
        "Namespace",
        &["ns"],
        false,
    ),
    r("", "v1", "services", "service", "Service", &["svc"], true),
    r(
        "",
        "v1",
        "endpoints",
        "endpoints",
        "Endpoints",
        &["ep"],
        true,
    ),
    r(
        "",
        "v1",
        "persistentvolumeclaims",
        "persistentvolumeclaim",
        "PersistentVolumeClaim",
        &["pvc"],
        true,
    ),
    r(
        "",
        "v1",
        "persistentvolumes",
        "persistentvolume",
        "PersistentVolume",
        &["pv"],
        false,
    ),
    r(
        "",
        "v1",
        "configmaps",
        "configmap",
        "ConfigMap",
        &["cm"],
        true,
    ),
    r(
        "",
        "v1",
        "serviceaccounts",
        "serviceaccount",
        "ServiceAccount",
        &["sa"],
        true,
    ),
    r(
        "",
        "v1",
        "replicationcontrollers",
        "replicationcontroller",
        "ReplicationController",
        &["rc"],
        true,
    ),
    r(
        "apps",
        "v1",
        "deployments",
        "deployment",
        "Deployment",
        &["deploy"],
        true,
    ),
    r(
        "apps",
        "v1",
        "replicasets",
        "replicaset",
        "ReplicaSet",
        &["rs"],
        true,
    ),
    r(
        "apps",
        "v1",
        "statefulsets",
        "statefulset",
        "StatefulSet",
        &["sts"],
        true,
    ),
    r(
        "apps",
        "v1",
        "daemonsets",
        "daemonset",
        "DaemonSet",
        &["ds"],
        true,
    ),
    r("batch", "v1", "jobs", "job", "Job", &[], true),
    r(
        "batch",
        "v1",
        "cronjobs",
        "cronjob",
        "CronJob",
        &["cj"],
        true,
    ),
    r(
        "autoscaling",
        "v2",
        "horizontalpodautoscalers",
        "horizontalpodautoscaler",
        "HorizontalPodAutoscaler",
        &["hpa"],
        true,
    ),
    r(
        "policy",
        "v1",
        "poddisruptionbudgets",
        "poddisruptionbudget",
        "PodDisruptionBudget",
        &["pdb"],
        true,
    ),
    r(
        "networking.k8s.io",
        "v1",
        "ingresses",
        "ingress",
        "Ingress",
        &["ing"],
        true,
    ),
];

fn verbs(res: &Resource) -> &'static [&'static str] {
    if res.plural == "events" {
        &EVENT_VERBS
    } else {
        &[]
    }
}

fn scope(res: &Resource) -> &'static str {
    if res.namespaced {
        "Namespaced"
    } else {
        "Cluster"
    }
}

/// The groups in the order discovery lists them (core first).
fn groups() -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&str, &str)> = Vec::new();
    for res in RESOURCES {
        if !out.contains(&(res.group, res.version)) {
            out.push((res.group, res.version));
        }
    }
    out
}

fn group_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.into()
    } else {
        format!("{group}/{version}")
    }
}

fn aggregated_group(group: &str, version: &str) -> Value {
    let resources: Vec<Value> = RESOURCES
        .iter()
        .filter(|res| res.group == group && res.version == version)
        .map(|res| {
            let mut v = json!({
                "resource": res.plural,
                "responseKind": {"group": res.group, "version": res.version, "kind": res.kind},
                "scope": scope(res),
                "singularResource": res.singular,
                "verbs": verbs(res),
            });
            if !res.short.is_empty() {
                v["shortNames"] = json!(res.short);
            }
            v
        })
        .collect();
    let mut metadata = json!({"creationTimestamp": null});
    if !group.is_empty() {
        metadata["name"] = json!(group);
    }
    json!({
        "metadata": metadata,
        "versions": [{"version": version, "resources": resources, "freshness": "Current"}],
    })
}

fn aggregated(core: bool) -> Vec<u8> {
    let items: Vec<Value> = groups()
        .into_iter()
        .filter(|(g, _)| g.is_empty() == core)
        .map(|(g, v)| aggregated_group(g, v))
        .collect();
    serde_json::to_vec(&json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": items,
    }))
    .expect("discovery serializes")
}

/// Aggregated discovery for `/api` (`core`) or `/apis`.
pub fn aggregated_document(core: bool) -> &'static [u8] {
    static API: OnceLock<Vec<u8>> = OnceLock::new();
    static APIS: OnceLock<Vec<u8>> = OnceLock::new();
    let cell = if core { &API } else { &APIS };
    cell.get_or_init(|| aggregated(core))
}

/// Legacy `/api`: `APIVersions`.
pub fn api_versions(server_address: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    }))
    .expect("discovery serializes")
}

fn group_entry(group: &str, version: &str) -> Value {
    let gv = json!({"groupVersion": group_version(group, version), "version": version});
    json!({"name": group, "versions": [gv.clone()], "preferredVersion": gv})
}

/// Legacy `/apis`: `APIGroupList`.
pub fn api_group_list() -> Vec<u8> {
    let groups: Vec<Value> = groups()
        .into_iter()
        .filter(|(g, _)| !g.is_empty())
        .map(|(g, v)| group_entry(g, v))
        .collect();
    serde_json::to_vec(&json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}))
        .expect("discovery serializes")
}

/// `/apis/GROUP`: `APIGroup`, if hushd advertises the group.
pub fn api_group(group: &str) -> Option<Vec<u8>> {
    let (g, v) = groups()
        .into_iter()
        .find(|(g, _)| *g == group && !g.is_empty())?;
    let mut doc = group_entry(g, v);
    doc["kind"] = json!("APIGroup");
    doc["apiVersion"] = json!("v1");
    Some(serde_json::to_vec(&doc).expect("discovery serializes"))
}

/// `/api/v1` or `/apis/GROUP/VERSION`: `APIResourceList`, if advertised.
pub fn api_resource_list(group: &str, version: &str) -> Option<Vec<u8>> {
    let resources: Vec<Value> = RESOURCES
        .iter()
        .filter(|res| res.group == group && res.version == version)
        .map(|res| {
            let mut v = json!({
                "name": res.plural,
                "singularName": res.singular,
                "namespaced": res.namespaced,
                "kind": res.kind,
                "verbs": verbs(res),
            });
            if !res.short.is_empty() {
                v["shortNames"] = json!(res.short);
            }
            v
        })
        .collect();
    if resources.is_empty() {
        return None;
    }
    let mut doc = json!({"kind": "APIResourceList", "groupVersion": group_version(group, version), "resources": resources});
    if !group.is_empty() {
        doc["apiVersion"] = json!("v1");
    }
    Some(serde_json::to_vec(&doc).expect("discovery serializes"))
}

/// `/version`: a `version.Info` whose minor pins the dispatcher's kubectl.
pub fn version() -> Vec<u8> {
    serde_json::to_vec(&json!({
        "major": "1",
        "minor": KUBERNETES_MINOR,
        "gitVersion": format!("v1.{KUBERNETES_MINOR}.0+hush.{}", env!("CARGO_PKG_VERSION")),
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "1970-01-01T00:00:00Z",
        "goVersion": "go1.23.4",
        "compiler": "gc",
        "platform": format!("{}/{}", std::env::consts::OS, if cfg!(target_arch = "x86_64") { "amd64" } else { std::env::consts::ARCH }),
    }))
    .expect("version serializes")
}

/// The OpenAPI v3 document of one group version: the event PATCH
/// operation, declaring `fieldValidation` (all kubectl's
/// QueryParamVerifierV3 reads).
fn openapi_group(core: bool) -> Vec<u8> {
    let (prefix, group) = if core {
        ("/api/v1", "")
    } else {
        ("/apis/events.k8s.io/v1", "events.k8s.io")
    };
    let path = format!("{prefix}/namespaces/{{namespace}}/events/{{name}}");
    serde_json::to_vec(&json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": format!("v1.{KUBERNETES_MINOR}.0")},
        "paths": {
            path: {"patch": {
                "x-kubernetes-group-version-kind": {"group": group, "version": "v1", "kind": "Event"},
                "parameters": [{"name": "fieldValidation", "in": "query", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "OK"}},
            }}
        },
    }))
    .expect("openapi serializes")
}

/// FNV-1a of `bytes`, as the document's cache-busting hash.
fn digest(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016X}")
}

/// `/openapi/v3/api/v1` (`core`) or `/openapi/v3/apis/events.k8s.io/v1`.
pub fn openapi_document(core: bool) -> &'static [u8] {
    static CORE: OnceLock<Vec<u8>> = OnceLock::new();
    static EVENTS: OnceLock<Vec<u8>> = OnceLock::new();
    let cell = if core { &CORE } else { &EVENTS };
    cell.get_or_init(|| openapi_group(core))
}

/// `/openapi/v3`: where each group's document is, with its hash.
pub fn openapi_root() -> Vec<u8> {
    let url = |core: bool, path: &str| {
        format!("/openapi/v3/{path}?hash={}", digest(openapi_document(core)))
    };
    serde_json::to_vec(&json!({"paths": {
        "api/v1": {"serverRelativeURL": url(true, "api/v1")},
        "apis/events.k8s.io/v1": {"serverRelativeURL": url(false, "apis/events.k8s.io/v1")},
    }}))
    .expect("openapi serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(bytes: &[u8]) -> Value {
        serde_json::from_slice(bytes).unwrap()
    }

    #[test]
    fn aggregated_core_discovery_serves_events_and_advertises_pods_without_verbs() {
        let doc = parse(aggregated_document(true));
        assert_eq!(doc["kind"], "APIGroupDiscoveryList");
        let items = doc["items"].as_array().unwrap();
        assert_eq!(items.len(), 1);
        let resources = items[0]["versions"][0]["resources"].as_array().unwrap();
        assert_eq!(resources[0]["resource"], "events");
        assert_eq!(resources[0]["shortNames"], json!(["ev"]));
        assert_eq!(resources[0]["verbs"].as_array().unwrap().len(), 8);
        let pods = resources.iter().find(|r| r["resource"] == "pods").unwrap();
        assert_eq!(
            (&pods["singularResource"], &pods["verbs"]),
            (&json!("pod"), &json!([]))
        );
    }

    #[test]
    fn the_events_group_has_no_short_name_so_ev_is_not_ambiguous() {
        let doc = parse(aggregated_document(false));
        let events = doc["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["metadata"]["name"] == "events.k8s.io")
            .unwrap();
        let resource = &events["versions"][0]["resources"][0];
        assert_eq!(resource["resource"], "events");
        assert!(resource.get("shortNames").is_none());
    }

    #[test]
    fn legacy_documents_list_every_group_and_its_resources() {
        let groups = parse(&api_group_list());
        let names: Vec<&str> = groups["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "events.k8s.io",
                "apps",
                "batch",
                "autoscaling",
                "policy",
                "networking.k8s.io"
            ]
        );
        let core = parse(&api_resource_list("", "v1").unwrap());
        assert_eq!(core["groupVersion"], "v1");
        assert!(core.get("apiVersion").is_none());
        let apps = parse(&api_resource_list("apps", "v1").unwrap());
        assert_eq!(apps["groupVersion"], "apps/v1");
        assert!(api_resource_list("apps", "v2").is_none());
        assert!(api_group("nope").is_none());
    }

    #[test]
    fn openapi_points_at_each_group_with_a_hash_of_its_document() {
        let root = parse(&openapi_root());
        let url = root["paths"]["api/v1"]["serverRelativeURL"]
            .as_str()
            .unwrap();
        assert_eq!(
            url,
            format!("/openapi/v3/api/v1?hash={}", digest(openapi_document(true)))
        );
        let events = parse(openapi_document(false));
        let op = &events["paths"]["/apis/events.k8s.io/v1/namespaces/{namespace}/events/{name}"]["patch"];
        assert_eq!(
            op["x-kubernetes-group-version-kind"]["group"],
            "events.k8s.io"
        );
        assert_eq!(op["parameters"][0]["name"], "fieldValidation");
    }

    #[test]
    fn version_reports_the_tested_minor() {
        let v = parse(&version());
        assert_eq!((&v["major"], &v["minor"]), (&json!("1"), &json!("32")));
    }
}
