//! Replay lines as JSON: a decision, a timer firing or a round of
//! retries, with events in the mode's shape.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::{Decision, Line};
use crate::decision::{Explanation, Patch, WriteOp};
use crate::format::kube_json::{EventJson, PatchJson, Shape};
use crate::model::options::Mode;
use crate::model::time::{Rfc3339, Timestamp};
use crate::write::recorder::Action;
use crate::write::writer::{DropCause, WriteStatus};

/// A replay line as JSON, events in the mode's shape.
pub struct LineJson<'a> {
    /// The mode, which picks the event shape.
    pub mode: Mode,
    /// The line.
    pub line: &'a Line,
}

struct At(Timestamp);
struct Status<'a>(&'a WriteStatus);
struct WriteJson<'a> {
    mode: Mode,
    op: &'a WriteOp,
    why: Option<&'a Explanation>,
    status: &'a WriteStatus,
}

impl Serialize for At {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&Rfc3339::nanos(self.0))
    }
}

impl Serialize for Status<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        match self.0 {
            WriteStatus::Written(stored) => {
                map.serialize_entry("status", "written")?;
                map.serialize_entry("stored", stored)?;
            }
            WriteStatus::Held { retry_at } => {
                map.serialize_entry("status", "held")?;
                map.serialize_entry("retryAt", &At(*retry_at))?;
            }
            WriteStatus::Dropped(cause) => {
                map.serialize_entry("status", "dropped")?;
                map.serialize_entry("cause", cause)?;
            }
        }
        map.end()
    }
}

/// Whether a status adds anything to its action: a written create or
/// patch, a spam drop and a refusal say it all.
fn worth_showing(action: Action, status: &WriteStatus) -> bool {
    match status {
        WriteStatus::Written(_) => false,
        WriteStatus::Dropped(DropCause::SpamFiltered) => action != Action::Drop,
        WriteStatus::Dropped(DropCause::Refused(_)) => action != Action::Refuse,
        WriteStatus::Dropped(DropCause::Trapped(_)) => action != Action::Trap,
        _ => true,
    }
}

fn op_action(op: &WriteOp) -> Action {
    match op {
        WriteOp::Create(_) => Action::Create,
        WriteOp::Patch { .. } => Action::Patch,
    }
}

impl Serialize for WriteJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        let action = op_action(self.op);
        map.serialize_entry("action", &action)?;
        map.serialize_entry("event", &EventJson(Shape::of(self.mode), self.op.event()))?;
        if let Some(patch) = self.op.patch() {
            map.serialize_entry("patch", &PatchJson(patch))?;
        }
        if let Some(why) = self.why {
            map.serialize_entry("why", why)?;
        }
        if worth_showing(action, self.status) {
            map.serialize_entry("write", &Status(self.status))?;
        }
        map.end()
    }
}

fn decision<S: SerializeMap>(map: &mut S, mode: Mode, d: &Decision) -> Result<(), S::Error> {
    map.serialize_entry("action", &d.action)?;
    if let Some(event) = &d.event {
        map.serialize_entry("event", &EventJson(Shape::of(mode), event))?;
    }
    if let Some(patch) = &d.patch {
        map.serialize_entry("patch", &PatchJson(patch as &Patch))?;
    }
    if let Some(why) = &d.why {
        map.serialize_entry("why", why)?;
    }
    if let Some(WriteStatus::Dropped(DropCause::Refused(reason) | DropCause::Trapped(reason))) =
        &d.write
    {
        map.serialize_entry("error", reason)?;
    }
    if let Some(status) = &d.write
        && worth_showing(d.action, status)
    {
        map.serialize_entry("write", &Status(status))?;
    }
    Ok(())
}

impl Serialize for LineJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        match self.line {
            Line::Decision(d) => decision(&mut map, self.mode, d)?,
            Line::Tick(t) => {
                map.serialize_entry("tick", &t.kind)?;
                map.serialize_entry("at", &At(t.at))?;
                let writes: alloc::vec::Vec<_> = t
                    .writes
                    .iter()
                    .map(|w| WriteJson {
                        mode: self.mode,
                        op: &w.op,
                        why: Some(&w.why),
                        status: &w.status,
                    })
                    .collect();
                map.serialize_entry("writes", &writes)?;
            }
            Line::Retry { at, writes } => {
                map.serialize_entry("tick", "retry")?;
                map.serialize_entry("at", &At(*at))?;
                let writes: alloc::vec::Vec<_> = writes
                    .iter()
                    .map(|w| WriteJson {
                        mode: self.mode,
                        op: &w.op,
                        why: None,
                        status: &w.status,
                    })
                    .collect();
                map.serialize_entry("writes", &writes)?;
            }
        }
        map.end()
    }
}
