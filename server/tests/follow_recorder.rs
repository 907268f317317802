//! The upstream written to by kube-rs's event `Recorder` (events.k8s.io/v1,
//! with its own series for repeats), as a controller written with kube-rs
//! writes: `hushd serve --follow` keeps each published occurrence once,
//! whichever way the Recorder stored it (a new Event, or a series count
//! raised on the one it made).

mod follow_support;

use std::time::Duration;

use follow_support::{TempDir, Upstream};
use k8s_openapi::api::core::v1::ObjectReference;
use kube::runtime::events::{Event, EventType, Recorder, Reporter};

const PUBLISHED: usize = 3;

#[test]
fn what_a_kube_rs_recorder_publishes_is_followed_once_per_publish() {
    let dir = TempDir::new("recorder");
    let upstream = Upstream::start(&dir, &[]);
    let kubeconfig = dir.write(
        "kubeconfig",
        &follow_support::kubeconfig(&upstream.url(), "", "    token: recorder-test\n"),
    );
    let down = TempDir::new("recorder-follower");
    let follower = Upstream::start(
        &down,
        &["--follow", "--kubeconfig", kubeconfig.to_str().unwrap()],
    );

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let config = kube::Config::new(upstream.url().parse().unwrap());
        let client = kube::Client::try_from(config).unwrap();
        let reporter = Reporter {
            controller: "hush-test-controller".into(),
            instance: Some("hush-test-controller-0".into()),
        };
        let recorder = Recorder::new(client, reporter);
        let pod = ObjectReference {
            api_version: Some("v1".into()),
            kind: Some("Pod".into()),
            name: Some("web-1".into()),
            namespace: Some("shop".into()),
            uid: Some("8b8c6f38-0d5e-4a59-9c1c-4d8f5d0b7a11".into()),
            ..ObjectReference::default()
        };
        for _ in 0..PUBLISHED {
            recorder
                .publish(
                    &Event {
                        type_: EventType::Warning,
                        reason: "FailedSync".into(),
                        note: Some("the sync of web-1 failed".into()),
                        action: "Reconciling".into(),
                        secondary: None,
                    },
                    &pod,
                )
                .await
                .unwrap();
        }
    });

    let count = || {
        let (status, body) = follower.request("GET", "/apis/hush.dev/v1/occurrences", "", "");
        assert_eq!(status, 200, "{body}");
        body.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|l| l["reason"] == "FailedSync" && l["involvedObject"]["name"] == "web-1")
            .count()
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while count() < PUBLISHED {
        assert!(
            std::time::Instant::now() < deadline,
            "only {} occurrences followed",
            count()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(count(), PUBLISHED);
}
