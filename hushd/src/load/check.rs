//! Zero loss, checked: every answer a load got acknowledged (2xx) names
//! the stored event and its count then; afterwards each of those events
//! must be stored with at least that count.

use std::collections::HashMap;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use serde::Deserialize;

use super::Target;

/// The acknowledged events: name → highest count answered.
#[derive(Debug, Default)]
pub struct Acked {
    counts: HashMap<(String, String), i64>,
    /// Acknowledged answers.
    pub answers: u64,
}

#[derive(Deserialize)]
struct Meta {
    name: String,
    namespace: String,
}

#[derive(Deserialize)]
struct Series {
    count: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    metadata: Meta,
    count: Option<i64>,
    deprecated_count: Option<i64>,
    series: Option<Series>,
}

impl Answer {
    fn count(&self) -> i64 {
        self.series
            .as_ref()
            .map(|s| s.count)
            .or(self.count)
            .or(self.deprecated_count)
            .unwrap_or(1)
    }
}

impl Acked {
    /// Records an acknowledged answer's event.
    pub fn record(&mut self, body: &[u8]) {
        if let Ok(answer) = serde_json::from_slice::<Answer>(body) {
            self.answers += 1;
            let count = answer.count();
            let entry = self
                .counts
                .entry((answer.metadata.namespace, answer.metadata.name))
                .or_default();
            *entry = (*entry).max(count);
        }
    }

    /// Adds another connection's records.
    pub fn merge(&mut self, other: Acked) {
        self.answers += other.answers;
        for (key, count) in other.counts {
            let entry = self.counts.entry(key).or_default();
            *entry = (*entry).max(count);
        }
    }
}

/// What the check found.
#[derive(Debug, serde::Serialize)]
pub struct Check {
    /// Acknowledged answers.
    pub acknowledged: u64,
    /// Distinct events they named.
    pub acknowledged_events: usize,
    /// Events stored.
    pub stored_events: usize,
    /// The stored counts added up (occurrences stored).
    pub stored_occurrences: i64,
    /// Acknowledged events missing, or stored with a lower count.
    pub lost: usize,
}

#[derive(Deserialize)]
struct List {
    metadata: ListMeta,
    items: Vec<Answer>,
}

#[derive(Deserialize)]
struct ListMeta {
    #[serde(rename = "continue")]
    next: Option<String>,
}

/// Lists every event at `path` (paged) and compares it with `acked`.
pub async fn verify(target: &Target, path: &str, acked: &Acked) -> Result<Check, String> {
    let mut sender = target.connect().await?;
    let mut stored: HashMap<(String, String), i64> = HashMap::new();
    let mut token: Option<String> = None;
    loop {
        let uri = match &token {
            None => format!("{path}?limit=5000"),
            Some(t) => format!("{path}?limit=5000&continue={t}"),
        };
        let request = target
            .prepare(hyper::Request::get(uri))
            .body(Full::new(Bytes::new()))
            .map_err(|e| e.to_string())?;
        // The connection takes the next request once the last one is done.
        sender.ready().await.map_err(|e| e.to_string())?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        if !status.is_success() {
            return Err(format!(
                "listing the events: {status}: {}",
                String::from_utf8_lossy(&body)
            ));
        }
        let list: List =
            serde_json::from_slice(&body).map_err(|e| format!("listing the events: {e}"))?;
        for item in list.items {
            let count = item.count();
            stored.insert((item.metadata.namespace, item.metadata.name), count);
        }
        match list.metadata.next.filter(|t| !t.is_empty()) {
            Some(t) => token = Some(t),
            None => break,
        }
    }
    let lost = acked
        .counts
        .iter()
        .filter(|(key, count)| stored.get(*key).is_none_or(|s| s < *count))
        .count();
    Ok(Check {
        acknowledged: acked.answers,
        acknowledged_events: acked.counts.len(),
        stored_events: stored.len(),
        stored_occurrences: stored.values().sum(),
        lost,
    })
}
