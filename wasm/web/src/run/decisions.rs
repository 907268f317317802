//! A run's decisions, kept compact as the replay produces them: per input
//! event its action and rule (numbered labels), count, tokens left, and the
//! name of the event it was written to or counted in; the timer and retry
//! writes; and which event names were touched since it was last asked, so
//! that a run that goes on (the dashboard's live view) can say which stored
//! events changed. The full decision of any one input is rebuilt on demand.
//!
//! Pure Rust: no JavaScript here.

use hush_core::format::replay::{Decision, Line};
use hush_core::{Action, Event, Patch, Rule, TickKind, Why, WriteStatus};

use crate::columns::{FastMap, Interner};
use crate::convert::instant_to_millis;

/// A `why` with its keys numbered in [`Decisions::keys`].
#[derive(Debug)]
struct CompactWhy {
    rule: Rule,
    key: u32,
    count: i32,
    distinct_messages: Option<u32>,
    spam_key: Option<u32>,
    tokens: Option<f64>,
}

/// One input's decision, without what the stored events already hold.
#[derive(Debug)]
struct Compact {
    action: Action,
    /// `action` and the rule, numbered in `labels` (rule: [`NO_RULE`] when none).
    labels: [u8; 2],
    /// Kept for creates and refusals only: a patch, drop or absorb names
    /// its stored event.
    event: Option<Box<Event>>,
    /// Boxed, as the write: most decisions (drops, absorbs) have neither.
    patch: Option<Box<Patch>>,
    why: Option<CompactWhy>,
    /// Kept unless written (a written status adds nothing to the action).
    write: Option<Box<WriteStatus>>,
    /// The event's namespace and name, numbered in `names`.
    name: Option<u32>,
}

/// A value shown by its JSON name.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Label {
    Action(Action),
    Rule(Rule),
    Tick(TickKind),
}

/// The rule column's value for a decision without a rule.
pub const NO_RULE: u8 = 255;

/// A timer or retry write: when (ms), which timer (a label), which event (a name).
#[derive(Debug)]
pub struct TickMark {
    /// When, in milliseconds since the epoch.
    pub at: f64,
    /// The timer, numbered in the labels.
    pub kind: u8,
    /// The event written, numbered in the names.
    pub name: u32,
}

/// A run's decisions and writes, as the replay produces them.
#[derive(Debug, Default)]
pub struct Decisions {
    decisions: Vec<Compact>,
    ticks: Vec<TickMark>,
    keys: Interner<Vec<String>>,
    labels: Interner<String>,
    /// Labels already numbered, by value.
    label_cache: Vec<(Label, u8)>,
    names: Interner<(String, String)>,
    /// `names` looked up by borrowed strings (one entry per event name).
    name_ids: FastMap<String, FastMap<String, u32>>,
    /// Names written or counted in since [`take_touched`](Decisions::take_touched).
    touched: Vec<u32>,
    /// Per name: whether it is in `touched`.
    is_touched: Vec<bool>,
}

impl Decisions {
    /// No decisions yet, room for `inputs`.
    pub fn with_capacity(inputs: usize) -> Self {
        Decisions {
            decisions: Vec::with_capacity(inputs),
            ..Decisions::default()
        }
    }

    /// The number of decisions (one per input correlated).
    pub fn len(&self) -> usize {
        self.decisions.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.decisions.is_empty()
    }

    fn name(&mut self, event: &Event) -> u32 {
        let (namespace, name) = (&event.metadata.namespace, &event.metadata.name);
        let id = match self.name_ids.get(namespace).and_then(|m| m.get(name)) {
            Some(&id) => id,
            None => {
                let id = self.names.id(&(namespace.clone(), name.clone()));
                self.name_ids
                    .entry(namespace.clone())
                    .or_default()
                    .insert(name.clone(), id);
                self.is_touched.push(false);
                id
            }
        };
        if !self.is_touched[id as usize] {
            self.is_touched[id as usize] = true;
            self.touched.push(id);
        }
        id
    }

    /// The number of a label in `labels`: its JSON name, as `hushd` prints it.
    fn label(&mut self, value: Label) -> u8 {
        if let Some(&(_, id)) = self.label_cache.iter().find(|(l, _)| *l == value) {
            return id;
        }
        let json = match value {
            Label::Action(a) => serde_json::to_value(a),
            Label::Rule(r) => serde_json::to_value(r),
            Label::Tick(t) => serde_json::to_value(t),
        };
        let json = json.ok();
        let name = json.as_ref().and_then(|v| v.as_str()).unwrap_or("?");
        let id = u8::try_from(self.labels.id(name)).expect("fewer than 255 labels");
        self.label_cache.push((value, id));
        id
    }

    /// Adds the lines of one replay step: `input` is the input event's
    /// index for its decision line (`None` for the lines after the last).
    pub fn push(&mut self, input: Option<usize>, lines: Vec<Line>) {
        for line in lines {
            match line {
                Line::Decision(d) => {
                    debug_assert_eq!(input, Some(self.decisions.len()));
                    self.push_decision(*d);
                }
                Line::Tick(t) => {
                    let kind = self.label(Label::Tick(t.kind));
                    for w in &t.writes {
                        let name = self.name(w.op.event());
                        let at = instant_to_millis(t.at);
                        self.ticks.push(TickMark { at, kind, name });
                    }
                }
                Line::Retry { at, writes } => {
                    let kind =
                        u8::try_from(self.labels.id("retry")).expect("fewer than 255 labels");
                    for w in &writes {
                        let name = self.name(w.op.event());
                        let at = instant_to_millis(at);
                        self.ticks.push(TickMark { at, kind, name });
                    }
                }
            }
        }
    }

    fn push_decision(&mut self, d: Decision) {
        let name = d.event.as_deref().map(|e| self.name(e));
        let why = d.why.map(|w| CompactWhy {
            rule: w.rule,
            key: self.keys.id(&w.key[..]),
            count: w.count,
            distinct_messages: w.distinct_messages,
            spam_key: w.spam_key.as_deref().map(|k| self.keys.id(k)),
            tokens: w.tokens,
        });
        let keep_event = matches!(d.action, Action::Create | Action::Refuse);
        let labels = [
            self.label(Label::Action(d.action)),
            why.as_ref()
                .map_or(NO_RULE, |w| self.label(Label::Rule(w.rule))),
        ];
        self.decisions.push(Compact {
            action: d.action,
            labels,
            event: d.event.filter(|_| keep_event),
            patch: d.patch.map(Box::new),
            why,
            write: d
                .write
                .filter(|w| !matches!(w, WriteStatus::Written(_)))
                .map(Box::new),
            name,
        });
    }

    /// The event names written or counted in since the last call, each once.
    pub fn take_touched(&mut self) -> Vec<u32> {
        let touched = std::mem::take(&mut self.touched);
        for &id in &touched {
            self.is_touched[id as usize] = false;
        }
        touched
    }

    /// The event names, numbered in order first seen: (namespace, name).
    pub fn names(&self) -> &Interner<(String, String)> {
        &self.names
    }

    /// The name of the event decision `index` was written to or counted in.
    pub fn name_of(&self, index: usize) -> Option<u32> {
        self.decisions[index].name
    }

    /// The actions, rules and tick kinds by their JSON names.
    pub fn labels(&self) -> &Interner<String> {
        &self.labels
    }

    /// The timer and retry writes, in order.
    pub fn ticks(&self) -> &[TickMark] {
        &self.ticks
    }

    /// Decision `index`'s action and rule, numbered in the labels (rule
    /// [`NO_RULE`] when none).
    pub fn action_rule(&self, index: usize) -> [u8; 2] {
        self.decisions[index].labels
    }

    /// The action of decision `index`.
    pub fn action(&self, index: usize) -> Action {
        self.decisions[index].action
    }

    /// The count after decision `index` (0 when it has no `why`).
    pub fn count(&self, index: usize) -> i32 {
        self.decisions[index].why.as_ref().map_or(0, |w| w.count)
    }

    /// The spam filter's tokens left after decision `index` (NaN when none).
    pub fn tokens(&self, index: usize) -> f64 {
        let why = self.decisions[index].why.as_ref();
        why.and_then(|w| w.tokens).unwrap_or(f64::NAN)
    }

    /// Decision `index` in full, as the replay made it; `None` if there is
    /// no such decision.
    pub fn decision(&self, index: usize) -> Option<Decision> {
        let d = self.decisions.get(index)?;
        let why = d.why.as_ref().map(|w| Why {
            rule: w.rule,
            key: self.keys.get(w.key).clone(),
            count: w.count,
            distinct_messages: w.distinct_messages,
            spam_key: w.spam_key.map(|k| self.keys.get(k).clone()),
            tokens: w.tokens,
        });
        Some(Decision {
            action: d.action,
            event: d.event.clone(),
            patch: d.patch.as_deref().cloned(),
            why,
            write: d.write.as_deref().cloned(),
        })
    }
}
