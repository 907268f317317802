//! What clients ask before they ask for events: `/version`, API discovery
//! (aggregated v2 when the Accept header asks for it, else the legacy
//! documents) and the OpenAPI v3 documents `kubectl create` reads to learn
//! that the server validates fields itself (an empty v2 document for
//! kubectl before 1.27).
//!
//! Besides events, the common kinds events are about (pods, nodes,
//! deployments, …) are advertised with no verbs, so `kubectl events --for
//! pod/NAME` can resolve its argument; `kubectl get pods` then fails with
//! NotFound, as it should on an events-only server.

use std::sync::{Arc, OnceLock};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use serde_json::{Value, json};

use self::resources::{RESOURCES, scope, verbs};
use super::status::ApiError;
use super::{App, json};

pub mod openapi;
mod resources;

/// The Content-Type aggregated discovery must be answered with.
pub const AGGREGATED_CONTENT_TYPE: &str =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// The Kubernetes minor version reported; the gcloud kubectl dispatcher
/// runs the kubectl of this minor, the one hushd was tested with.
pub const KUBERNETES_MINOR: &str = "32";

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

/// Whether the Accept header asks for aggregated discovery.
fn wants_aggregated(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .and_then(|accept| accept.split(',').next().map(str::to_string))
        .is_some_and(|first| {
            first.contains("as=APIGroupDiscoveryList")
                && first.contains("g=apidiscovery.k8s.io")
                && first.contains("v=v2")
        })
}

/// `GET /api`: aggregated discovery when the client asks for it, else
/// `APIVersions`.
pub async fn api_root(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    if wants_aggregated(&headers) {
        json(
            StatusCode::OK,
            AGGREGATED_CONTENT_TYPE,
            aggregated_document(true).to_vec(),
        )
    } else {
        json(
            StatusCode::OK,
            "application/json",
            api_versions(&app.address),
        )
    }
}

/// `GET /apis`: aggregated discovery when the client asks for it, else
/// `APIGroupList`.
pub async fn apis_root(headers: HeaderMap) -> Response {
    if wants_aggregated(&headers) {
        json(
            StatusCode::OK,
            AGGREGATED_CONTENT_TYPE,
            aggregated_document(false).to_vec(),
        )
    } else {
        json(StatusCode::OK, "application/json", api_group_list())
    }
}

/// An advertised document, or the 404 Status.
fn found(body: Option<Vec<u8>>) -> Response {
    match body {
        Some(body) => json(StatusCode::OK, "application/json", body),
        None => ApiError::no_route().into_response(),
    }
}

/// `GET /version`.
pub async fn version_info() -> Response {
    json(StatusCode::OK, "application/json", version())
}

/// `GET /api/v1`.
pub async fn core_resources() -> Response {
    found(api_resource_list("", "v1"))
}

/// `GET /apis/GROUP`.
pub async fn group(Path(group): Path<String>) -> Response {
    found(api_group(&group))
}

/// `GET /apis/GROUP/VERSION`.
pub async fn group_resources(Path((group, version)): Path<(String, String)>) -> Response {
    found(api_resource_list(&group, &version))
}

/// `GET /openapi/v2`: what kubectl before 1.27 reads to validate what it
/// creates (it fails with NotFound without it). The document declares no
/// schema, so kubectl leaves the validation to the server, as the v3
/// documents ask newer ones to: in protobuf (what kubectl asks for) an
/// empty `Document`, which is zero bytes, with the content type
/// kube-apiserver gives it; otherwise the same document in JSON.
pub async fn openapi_v2(headers: HeaderMap) -> Response {
    let protobuf = headers
        .get(header::ACCEPT)
        .and_then(|accept| accept.to_str().ok())
        .is_some_and(|accept| accept.contains("protobuf"));
    match protobuf {
        true => json(StatusCode::OK, "application/octet-stream", Vec::new()),
        false => json(
            StatusCode::OK,
            "application/json",
            json!({"swagger": "2.0", "info": {"title": "hush", "version": "v1"}, "paths": {}})
                .to_string(),
        ),
    }
}

/// `GET /openapi/v3`.
pub async fn openapi_index() -> Response {
    json(StatusCode::OK, "application/json", openapi::openapi_root())
}

/// `GET /openapi/v3/api/v1`.
pub async fn openapi_core() -> Response {
    json(
        StatusCode::OK,
        "application/json",
        openapi::openapi_document(true).to_vec(),
    )
}

/// `GET /openapi/v3/apis/events.k8s.io/v1`.
pub async fn openapi_events() -> Response {
    json(
        StatusCode::OK,
        "application/json",
        openapi::openapi_document(false).to_vec(),
    )
}

#[cfg(test)]
mod tests {
    use super::openapi::{digest, openapi_document, openapi_root};
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
