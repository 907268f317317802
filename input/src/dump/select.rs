//! Which files of a folder or archive hold events, by their path:
//!
//! - `events.yaml`, `events.yml`, `events.json`, `events.jsonl` anywhere
//!   (a must-gather's `namespaces/NS/core/events.yaml`, a `kubectl
//!   cluster-info dump --output-directory`'s `NS/events.json`);
//! - `*-events.json` (and `.yaml`, `.yml`, `.jsonl`): events saved by name;
//! - any `.json`, `.yaml` or `.yml` in a folder named `events` (a support
//!   bundle's `cluster-resources/events/NS.json`);
//! - any of these compressed (`.gz`, `.xz`);
//! - archives (`.tar`, `.tar.gz`, `.tgz`, `.tar.xz`, `.txz`, `.zip`),
//!   whose files are chosen by the same rules.
//!
//! Everything else is passed over and counted: logs (`.log`, `logs.txt`,
//! and anything under a `logs` folder) and other files (other resources,
//! reports, binaries).

use super::summary::Skip;

/// What a path is, for reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A file holding events.
    Events,
    /// An archive, whose files are chosen in turn.
    Archive,
    /// Passed over, and why.
    Skip(Skip),
}

const TEXT: [&str; 4] = ["json", "yaml", "yml", "jsonl"];
const ARCHIVES: [&str; 6] = [".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".zip"];

/// Whether the file at `path` ('/'-separated) of a folder is read: it
/// holds events, or it is an archive. A [`Folder`](super::Folder) counts
/// these for the size it gives progress.
pub fn is_read(path: &str) -> bool {
    !matches!(classify(path), Kind::Skip(_))
}

/// What the file at `path` ('/'-separated) is.
pub(crate) fn classify(path: &str) -> Kind {
    let lower = path.to_ascii_lowercase();
    if ARCHIVES.iter().any(|ext| lower.ends_with(ext)) {
        return Kind::Archive;
    }
    let plain = lower
        .strip_suffix(".gz")
        .or_else(|| lower.strip_suffix(".xz"))
        .unwrap_or(&lower);
    let mut parts = plain.rsplit('/');
    let name = parts.next().unwrap_or_default();
    let parent = parts.next().unwrap_or_default();
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    let text = TEXT.contains(&ext);
    if text && (stem == "events" || stem.ends_with("-events")) {
        return Kind::Events;
    }
    if text && ext != "jsonl" && parent == "events" {
        return Kind::Events;
    }
    let in_logs = plain
        .split('/')
        .any(|part| part == "logs" || part == "all-logs");
    if ext == "log" || name == "logs.txt" || in_logs {
        return Kind::Skip(Skip::Log);
    }
    Kind::Skip(Skip::NotEvents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_that_hold_events() {
        for path in [
            "must-gather.local.1/quay-io-sha256-1/namespaces/openshift-etcd/core/events.yaml",
            "cluster-info/kube-system/events.json",
            "support-bundle/cluster-resources/events/default.json",
            "saved/prod-events.json",
            "Events.YAML",
            "namespaces/a/core/events.yaml.gz",
            "recording/events.jsonl",
        ] {
            assert_eq!(classify(path), Kind::Events, "{path}");
        }
    }

    #[test]
    fn archives_and_the_rest() {
        for path in [
            "bundle.tar.gz",
            "a/must-gather.TGZ",
            "x.tar.xz",
            "y.zip",
            "z.tar",
        ] {
            assert_eq!(classify(path), Kind::Archive, "{path}");
        }
        for (path, why) in [
            ("namespaces/a/core/pods.yaml", Skip::NotEvents),
            ("cluster-resources/nodes.json", Skip::NotEvents),
            ("namespaces/a/pods/p/c/c/logs/current.log", Skip::Log),
            ("cluster-info/default/nginx-1/logs.txt", Skip::Log),
            ("host_service_logs/masters/kubelet_service.log", Skip::Log),
            ("event-filter.html", Skip::NotEvents),
            ("events/README.md", Skip::NotEvents),
            ("timestamp", Skip::NotEvents),
        ] {
            assert_eq!(classify(path), Kind::Skip(why), "{path}");
        }
    }
}
