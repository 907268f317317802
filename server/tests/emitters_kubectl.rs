//! kubectl (`/usr/bin/kubectl`) as an emitter that does not correlate,
//! against a real `hushd serve` in every `--correlate` mode: each
//! `kubectl create -f` is one occurrence, counted once, the same file
//! created again is a retry of that create (answered, not counted again),
//! and a `kubectl patch` that would lower a stored count leaves it.

mod emitters_support;

use std::process::{Command, Output};

use emitters_support::{FAST_SERIES, Monitor, Server, TempDir, in_every_mode};
use serde_json::json;

fn kubectl(server: &Server, args: &[&str]) -> Output {
    Command::new("/usr/bin/kubectl")
        .arg(format!("--server={}", server.url()))
        .args(args)
        .output()
        .expect("running /usr/bin/kubectl")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "kubectl failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn kubectl_creates_are_counted_once_and_patches_never_lower_a_count() {
    in_every_mode(|mode| {
        let dir = TempDir::new(&format!("kubectl-{mode}"));
        let server = Server::start(&dir, mode, &["--options", FAST_SERIES]);
        let monitor = Monitor::start(server.port);
        let file = |i: usize| {
            let path = dir.path(&format!("kc.{i}.json"));
            let event = json!({
                "apiVersion": "v1", "kind": "Event",
                "metadata": {"name": format!("kc.{i}"), "namespace": "default"},
                "involvedObject": {"kind": "Pod", "namespace": "default", "name": "kc-web", "apiVersion": "v1"},
                "reason": "BackOff", "message": "Back-off restarting failed container", "type": "Warning",
                "source": {"component": "script", "host": "node-1"},
            });
            std::fs::write(&path, event.to_string()).unwrap();
            path.display().to_string()
        };
        for i in 0..8 {
            let out = ok(&kubectl(&server, &["create", "-f", &file(i)]));
            assert!(out.contains("created"), "{mode}: {out}");
        }
        // The same create again (a script that ran twice): one occurrence.
        ok(&kubectl(&server, &["create", "-f", &file(0)]));
        let about = |e: &serde_json::Value| emitters_support::about(e, "kc-web", "BackOff");
        assert_eq!(
            server.wait_stored(8, about),
            8,
            "{mode}: {:#?}",
            server.events()
        );

        // kc.0 is the first create: stored under its name in every mode.
        let stored = |name: &str| {
            let e = server.get(&format!("{}/{name}", emitters_support::CORE));
            emitters_support::occurrences(&e.json())
        };
        let before = stored("kc.0");
        let raise = format!("{{\"count\":{}}}", before + 3);
        ok(&kubectl(
            &server,
            &["patch", "event", "kc.0", "--type", "merge", "-p", &raise],
        ));
        assert_eq!(stored("kc.0"), before + 3, "{mode}");
        // A count below the stored one is kept at the stored one.
        ok(&kubectl(
            &server,
            &[
                "patch",
                "event",
                "kc.0",
                "--type",
                "merge",
                "-p",
                r#"{"count":1}"#,
            ],
        ));
        assert_eq!(stored("kc.0"), before + 3, "{mode}");
        assert_eq!(server.stored(about), 11, "{mode}");
        let (violations, _) = monitor.finish();
        assert!(violations.is_empty(), "{mode}: {violations:?}");
    });
}
