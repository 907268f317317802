//! `hushd serve --demo`: a cluster feeding the server it runs in, through
//! its own HTTP API, as raw emitters would post it: first the sample's 40
//! minutes of a cluster's bad day, 20 times faster (two minutes), then a
//! living cluster whose incidents keep coming in real time ([`cluster`]),
//! so `kubectl get events -w` and the dashboard opened at any minute show
//! traffic, correlation and drops.

pub mod cluster;

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hush_core::Timestamp;
use hyper_util::rt::TokioIo;
use serde_json::Value;

/// How much faster than recorded the storm is replayed.
pub const SPEEDUP: f64 = 20.0;

/// One storm line ready to post: where, what, and how long after the
/// previous one (in the recording).
struct Post {
    path: String,
    body: Bytes,
    after: Duration,
}

/// The living cluster's emissions as posts.
fn living(seed: u64) -> impl Iterator<Item = Post> {
    cluster::Cluster::new(seed).filter_map(|emission| {
        let mut event = emission.event;
        let object = event["involvedObject"]["name"]
            .as_str()
            .unwrap_or("event")
            .to_owned();
        event["metadata"] = serde_json::json!({"generateName": format!("{object}.")});
        Some(Post {
            path: format!("/api/v1/namespaces/{}/events", emission.namespace),
            body: Bytes::from(serde_json::to_vec(&event).ok()?),
            after: emission.after,
        })
    })
}

fn posts(storm: &str) -> Vec<Post> {
    let mut previous: Option<Timestamp> = None;
    storm
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|mut event| {
            let at = event.get("at").and_then(Value::as_str).and_then(|t| Timestamp::parse_rfc3339(t).ok())?;
            let after = previous.map_or(0, |p| at.nanos_since(p).max(0));
            previous = Some(at);
            let object = event["involvedObject"].clone();
            let namespace = object["namespace"].as_str().filter(|n| !n.is_empty()).unwrap_or("default").to_string();
            let map = event.as_object_mut()?;
            map.remove("at");
            // A raw emitter: no timestamps or count (the correlator fills
            // them in when it observes the event), a name made by the server.
            map.insert(
                "metadata".into(),
                serde_json::json!({"generateName": format!("{}.", object["name"].as_str().unwrap_or("event"))}),
            );
            Some(Post {
                path: format!("/api/v1/namespaces/{namespace}/events"),
                body: Bytes::from(serde_json::to_vec(&event).ok()?),
                after: Duration::from_nanos(u64::try_from(after).unwrap_or(0)).div_f64(SPEEDUP),
            })
        })
        .collect()
}

/// Posts `storm` (JSON lines with `"at"`) to the server at `address`,
/// then the living cluster, until `shutdown`; logs a summary of the
/// answers after the storm and every minute after it.
pub async fn feed(
    address: SocketAddr,
    storm: &'static str,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) {
    let storm = posts(storm);
    tracing::info!(
        events = storm.len(),
        "demo: feeding the storm, then a living cluster"
    );
    let storm_len = storm.len();
    let mut posts = storm
        .into_iter()
        .chain(living(fastrand::u64(..)))
        .enumerate();
    let mut answers = std::collections::BTreeMap::<String, u64>::new();
    let mut reported = tokio::time::Instant::now();
    'connect: loop {
        let stream = match tokio::net::TcpStream::connect(address).await {
            Ok(stream) => stream,
            Err(e) => {
                tracing::warn!("demo: cannot reach the server: {e}");
                return;
            }
        };
        let (mut sender, connection) =
            match hyper::client::conn::http1::handshake(TokioIo::new(stream)).await {
                Ok(handshake) => handshake,
                Err(e) => {
                    tracing::warn!("demo: cannot talk to the server: {e}");
                    return;
                }
            };
        tokio::spawn(connection);
        for (n, post) in posts.by_ref() {
            tokio::select! {
                _ = tokio::time::sleep(post.after) => {}
                _ = crate::shutdown::stopped(&mut shutdown) => return,
            }
            let request = hyper::Request::post(post.path.as_str())
                .header(hyper::header::HOST, address.to_string())
                .header(hyper::header::CONTENT_TYPE, "application/json")
                .header(hyper::header::USER_AGENT, "hushd-demo")
                .body(Full::new(post.body.clone()))
                .expect("a valid request");
            let sent = match sender.ready().await {
                Ok(()) => sender.send_request(request).await,
                Err(e) => Err(e),
            };
            let response = match sent {
                Ok(response) => response,
                Err(e) => {
                    tracing::warn!("demo: posting an event failed: {e}; connecting again");
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                        _ = crate::shutdown::stopped(&mut shutdown) => return,
                    }
                    continue 'connect;
                }
            };
            let decision = response
                .headers()
                .get("hush-decision")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.split(';').next())
                .unwrap_or("error")
                .to_string();
            let _ = response.into_body().collect().await;
            *answers.entry(decision).or_default() += 1;
            if n + 1 == storm_len {
                tracing::info!(
                    ?answers,
                    "demo: the storm is done; the living cluster goes on"
                );
                answers.clear();
                reported = tokio::time::Instant::now();
            } else if n >= storm_len && reported.elapsed() >= Duration::from_secs(60) {
                tracing::info!(?answers, "demo: the living cluster's last minute");
                answers.clear();
                reported = tokio::time::Instant::now();
            }
        }
        return;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storm_lines_become_raw_creates_paced_by_their_instants() {
        let storm = concat!(
            r#"{"at":"2024-05-01T09:00:00Z","involvedObject":{"kind":"Pod","namespace":"shop","name":"web-1"},"reason":"BackOff","type":"Warning"}"#,
            "\n",
            r#"{"at":"2024-05-01T09:00:10Z","involvedObject":{"kind":"Node","name":"node-1"},"reason":"NodeNotReady","type":"Warning"}"#,
        );
        let posts = posts(storm);
        assert_eq!(posts.len(), 2);
        assert_eq!(posts[0].path, "/api/v1/namespaces/shop/events");
        assert_eq!(posts[1].path, "/api/v1/namespaces/default/events");
        assert_eq!(posts[1].after, Duration::from_millis(500));
        let body: Value = serde_json::from_slice(&posts[0].body).unwrap();
        assert!(body.get("at").is_none());
        assert_eq!(body["metadata"]["generateName"], "web-1.");
    }

    #[test]
    fn the_living_cluster_posts_raw_creates_to_its_namespaces() {
        let posts: Vec<Post> = living(5).take(200).collect();
        assert!(
            posts
                .iter()
                .all(|p| p.path.starts_with("/api/v1/namespaces/"))
        );
        let body: Value = serde_json::from_slice(&posts[0].body).unwrap();
        let object = body["involvedObject"]["name"].as_str().unwrap();
        assert_eq!(body["metadata"]["generateName"], format!("{object}."));
        assert!(body.get("count").is_none() && body.get("lastTimestamp").is_none());
    }
}
