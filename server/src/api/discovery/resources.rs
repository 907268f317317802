//! The resources discovery advertises: events in both groups with every
//! verb, and the kinds events are about with none.

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
pub(super) struct Resource {
    pub(super) group: &'static str,
    pub(super) version: &'static str,
    pub(super) plural: &'static str,
    pub(super) singular: &'static str,
    pub(super) kind: &'static str,
    pub(super) short: &'static [&'static str],
    pub(super) namespaced: bool,
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
pub(super) const RESOURCES: &[Resource] = &[
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

pub(super) fn verbs(res: &Resource) -> &'static [&'static str] {
    if res.plural == "events" {
        &EVENT_VERBS
    } else {
        &[]
    }
}

pub(super) fn scope(res: &Resource) -> &'static str {
    if res.namespaced {
        "Namespaced"
    } else {
        "Cluster"
    }
}
