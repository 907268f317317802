//! The upstream behind `hushd serve`'s own front door: TLS with a CA it
//! generates (`--cert-dir`), tokens from `--token-auth-file`, and the
//! kubeconfig `--write-kubeconfig` writes. kubectl writes events to it
//! with that kubeconfig, and `hushd serve --follow --kubeconfig` of the
//! same file follows them; a kubeconfig whose token the upstream does not
//! know stops the follower's start with the 401 explained.

mod follow_support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use follow_support::{TempDir, Upstream, upstream::hushd};

/// kubectl with `kubeconfig`; panics with its stderr when it fails.
fn kubectl(kubeconfig: &std::path::Path, args: &[&str]) -> String {
    let out = Command::new("/usr/bin/kubectl")
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .output()
        .expect("running kubectl");
    assert!(
        out.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A core/v1 Event as client-go's recorder writes it.
fn event(name: &str, count: i32) -> String {
    serde_json::json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "shop"},
        "involvedObject": {"kind": "Pod", "namespace": "shop", "name": "web-1", "apiVersion": "v1"},
        "reason": "BackOff",
        "message": "Back-off restarting failed container",
        "type": "Warning",
        "source": {"component": "kubelet", "host": "node-1"},
        "count": count,
        "firstTimestamp": "2026-01-01T00:00:00Z",
        "lastTimestamp": "2026-01-01T00:01:00Z",
    })
    .to_string()
}

/// The follower's occurrences of events named `name*`.
fn occurrences(follower: &Upstream, name: &str) -> usize {
    let (status, body) = follower.request("GET", "/apis/hush.dev/v1/occurrences", "", "");
    assert_eq!(status, 200, "{body}");
    body.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|l| {
            l["metadata"]["name"]
                .as_str()
                .is_some_and(|n| n.starts_with(name))
        })
        .count()
}

#[test]
fn a_follower_follows_a_tls_and_token_hushd_serve_with_the_kubeconfig_it_wrote() {
    let dir = TempDir::new("frontdoor");
    let tokens = dir.write(
        "tokens.csv",
        "follow-frontdoor-token,follower,1001,\"system:masters\"\n",
    );
    let kubeconfig = dir.path("kubeconfig");
    // Kept to the end: dropping it stops the upstream.
    let _upstream = Upstream::start(
        &dir,
        &[
            "--cert-dir",
            dir.path("certs").to_str().unwrap(),
            "--token-auth-file",
            tokens.to_str().unwrap(),
            "--write-kubeconfig",
            kubeconfig.to_str().unwrap(),
        ],
    );
    let written = std::fs::read_to_string(&kubeconfig).unwrap();
    assert!(written.contains("https://127.0.0.1:"), "{written}");
    assert!(written.contains("certificate-authority-data"), "{written}");

    // Before the follower starts (listed) and after (watched).
    let file = dir.write("before.json", &event("before", 3));
    kubectl(&kubeconfig, &["create", "-f", file.to_str().unwrap()]);

    let down = TempDir::new("frontdoor-follower");
    let follower = Upstream::start(
        &down,
        &["--follow", "--kubeconfig", kubeconfig.to_str().unwrap()],
    );
    let file = dir.write("after.json", &event("after", 1));
    kubectl(&kubeconfig, &["create", "-f", file.to_str().unwrap()]);

    // "before" was listed with count 3 (three occurrences), "after" watched.
    let deadline = Instant::now() + Duration::from_secs(30);
    while occurrences(&follower, "before") < 3 || occurrences(&follower, "after") < 1 {
        assert!(
            Instant::now() < deadline,
            "not followed: {} of before, {} of after\n{}",
            occurrences(&follower, "before"),
            occurrences(&follower, "after"),
            follower.log.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(occurrences(&follower, "before"), 3);
    assert_eq!(occurrences(&follower, "after"), 1);

    // A token the upstream does not know: the follower does not start,
    // and says the API server answered 401.
    let wrong = dir.path("wrong-kubeconfig");
    std::fs::write(
        &wrong,
        written.replace("follow-frontdoor-token", "not-a-token-it-knows"),
    )
    .unwrap();
    assert_ne!(std::fs::read_to_string(&wrong).unwrap(), written);
    let refused = TempDir::new("frontdoor-refused");
    let mut child = Command::new(hushd())
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--follow",
            "--kubeconfig",
        ])
        .arg(&wrong)
        .arg("--db")
        .arg(refused.path("refused.db"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("a follower with a wrong token kept running");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!status.success(), "{stderr}");
    assert!(stderr.contains("401 Unauthorized"), "{stderr}");
}
