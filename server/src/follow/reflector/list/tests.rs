//! The pager against scripted pages: continuation, and the whole list
//! again when a continue token has expired.

use super::*;
use crate::follow::mirror::MemoryMirror;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta;
use kube::core::Status;

fn event(n: u32) -> Event {
    let mut e = Event::default();
    e.metadata.namespace = Some("shop".into());
    e.metadata.name = Some(format!("e{n}"));
    e.metadata.uid = Some(format!("uid-{n}"));
    e.metadata.resource_version = Some(format!("{n}"));
    e.count = Some(1);
    e
}

fn page(items: &[u32], version: &str, token: Option<&str>) -> ObjectList<Event> {
    ObjectList {
        types: Default::default(),
        metadata: ListMeta {
            continue_: token.map(str::to_owned),
            resource_version: Some(version.into()),
            ..ListMeta::default()
        },
        items: items.iter().map(|n| event(*n)).collect(),
    }
}

/// Answers each request from a script, and records what was asked:
/// (limit, continue, resourceVersion).
struct Script {
    answers: Vec<Result<ObjectList<Event>, kube::Error>>,
    asked: Vec<(Option<u32>, Option<String>, Option<String>)>,
}

impl Pages for Script {
    async fn page(&mut self, params: &ListParams) -> Result<ObjectList<Event>, kube::Error> {
        self.asked.push((
            params.limit,
            params.continue_token.clone(),
            params.resource_version.clone(),
        ));
        self.answers.remove(0)
    }
}

fn expired() -> kube::Error {
    kube::Error::Api(
        Status::failure(
            "The provided continue parameter is too old to display a consistent list result.",
            "Expired",
        )
        .with_code(410)
        .boxed(),
    )
}

#[tokio::test]
async fn pages_are_applied_one_by_one_and_the_last_carries_the_checkpoint() {
    let mut script = Script {
        answers: vec![
            Ok(page(&[1, 2], "9", Some("c1"))),
            Ok(page(&[3, 4], "9", Some("c2"))),
            Ok(page(&[5], "9", None)),
        ],
        asked: vec![],
    };
    let mut mirror = MemoryMirror::new();
    let listed = list_into(&mut script, &mut mirror, &ListFrom::Latest, Some(2))
        .await
        .unwrap();
    assert_eq!(listed.resource_version, "9");
    assert!(listed.paginated);
    assert_eq!((listed.events, listed.applied.occurrences), (5, 5));
    assert_eq!(mirror.batches(), 3);
    assert_eq!(mirror.checkpoint().as_deref(), Some("9"));
    assert_eq!(
        script.asked,
        vec![
            (Some(2), None, None),
            (Some(2), Some("c1".into()), None),
            (Some(2), Some("c2".into()), None),
        ]
    );
}

#[tokio::test]
async fn an_expired_continue_token_lists_everything_at_once_at_the_first_version() {
    let mut script = Script {
        answers: vec![
            Ok(page(&[1, 2], "9", Some("c1"))),
            Err(expired()),
            Ok(page(&[1, 2, 3, 4, 5, 6], "12", None)),
        ],
        asked: vec![],
    };
    let mut mirror = MemoryMirror::new();
    let from = ListFrom::AtLeast("7".into());
    let listed = list_into(&mut script, &mut mirror, &from, Some(2))
        .await
        .unwrap();
    assert_eq!(
        script.asked,
        vec![
            (Some(2), None, Some("7".into())),
            (Some(2), Some("c1".into()), Some("7".into())),
            (None, None, Some("7".into())),
        ]
    );
    // The first page's two events are not counted twice.
    assert_eq!(listed.resource_version, "12");
    assert_eq!(mirror.occurrence_count(), 6);
    assert_eq!(mirror.checkpoint().as_deref(), Some("12"));
}

#[tokio::test]
async fn a_failing_page_leaves_the_checkpoint_where_it_was() {
    let mut script = Script {
        answers: vec![
            Ok(page(&[1, 2], "9", Some("c1"))),
            Err(kube::Error::Api(
                Status::failure("etcdserver: request timed out", "InternalError")
                    .with_code(500)
                    .boxed(),
            )),
        ],
        asked: vec![],
    };
    let mut mirror = MemoryMirror::new();
    let failed = list_into(&mut script, &mut mirror, &ListFrom::Latest, Some(2)).await;
    assert!(matches!(failed, Err(ListError::Api(kube::Error::Api(s))) if s.code == 500));
    assert_eq!(mirror.checkpoint(), None);
}
