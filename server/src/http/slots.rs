//! Who holds the server's connections. Every accepted connection takes a
//! [`Slot`]; it is *starting* until its first request's headers have
//! arrived (the TLS handshake included), then *serving*. A connection
//! that is still starting when `--header-timeout` has passed is closed.
//! When all `--max-connections` slots are taken, a new connection is
//! admitted by closing the oldest starting connection that has had
//! [`Slots::min_age`] to send its request; while none has, new connections
//! are still admitted, up to as many again as the limit, so that the
//! listen backlog keeps moving. A client that dribbles its headers, or
//! opens connections in a loop without finishing a request, only ever
//! pushes out its own kind, while a client that sends its request at once
//! is serving within a round trip and is never closed for room. Only when
//! twice the limit is open do new connections wait in the backlog. With
//! `--max-connections-per-ip`, one address cannot hold more than that
//! many slots at once.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// The connection slots.
#[derive(Debug)]
pub struct Slots {
    max: usize,
    max_per_ip: Option<NonZeroUsize>,
    min_age: Duration,
    state: Mutex<State>,
    /// Signalled whenever a slot is given back.
    freed: Notify,
}

#[derive(Debug, Default)]
struct State {
    next_id: u64,
    open: usize,
    /// Starting connections, oldest first.
    starting: BTreeMap<u64, Arc<Shared>>,
    per_ip: HashMap<IpAddr, usize>,
}

/// What a slot and the slots share about one connection.
#[derive(Debug)]
struct Shared {
    /// The client's address.
    ip: IpAddr,
    /// When it was admitted.
    since: Instant,
    /// Its first request has arrived.
    serving: AtomicBool,
    /// Its slot was given back (eviction gives it back early).
    released: AtomicBool,
    /// Signalled when it is evicted.
    evicted: Notify,
}

/// Why a connection was not admitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Its address already holds `--max-connections-per-ip` slots.
    PerIp,
}

/// One connection's slot, given back when dropped.
#[derive(Debug)]
pub struct Slot {
    id: u64,
    slots: Arc<Slots>,
    shared: Arc<Shared>,
}

/// What admitting a connection did.
#[derive(Debug)]
pub struct Admitted {
    /// The new connection's slot.
    pub slot: Slot,
    /// Whether an older starting connection was evicted to make room.
    pub evicted: bool,
}

/// When a connection can be admitted.
#[derive(Debug, PartialEq, Eq)]
enum Wait {
    /// Now.
    No,
    /// When the oldest starting connection is old enough to be evicted.
    For(Duration),
    /// When a slot is given back.
    Freed,
}

impl Slots {
    /// `max` slots (at least one), at most `max_per_ip` for one address; a
    /// starting connection may be closed for room once it is `min_age` old.
    pub fn new(max: usize, max_per_ip: Option<NonZeroUsize>, min_age: Duration) -> Arc<Slots> {
        Arc::new(Slots {
            max: max.max(1),
            max_per_ip,
            min_age,
            state: Mutex::new(State::default()),
            freed: Notify::new(),
        })
    }

    /// How long a starting connection is safe from being closed for room:
    /// long enough for a client to send the request it connected for.
    pub fn min_age(&self) -> Duration {
        self.min_age
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Connections open.
    pub fn open(&self) -> usize {
        self.lock().open
    }

    /// Connections that have not sent their first request yet.
    pub fn starting(&self) -> usize {
        self.lock().starting.len()
    }

    /// The oldest starting connection, when it may be evicted at `now`.
    fn evictable(&self, state: &State, now: Instant) -> Option<u64> {
        let (id, oldest) = state.starting.first_key_value()?;
        (now.saturating_duration_since(oldest.since) >= self.min_age).then_some(*id)
    }

    fn wait(&self, now: Instant) -> Wait {
        let state = self.lock();
        if state.open < self.max.saturating_mul(2) {
            return Wait::No;
        }
        match state.starting.first_key_value() {
            Some((_, oldest)) => {
                let age = now.saturating_duration_since(oldest.since);
                match self.min_age.checked_sub(age) {
                    Some(left) if !left.is_zero() => Wait::For(left),
                    _ => Wait::No,
                }
            }
            None => Wait::Freed,
        }
    }

    /// Resolves when a connection can be admitted.
    pub async fn room(&self) {
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            match self.wait(Instant::now()) {
                Wait::No => return,
                Wait::Freed => freed.await,
                Wait::For(left) => {
                    tokio::select! {
                        () = freed => {}
                        () = tokio::time::sleep(left) => {}
                    }
                }
            }
        }
    }

    /// Resolves when no connection is open.
    pub async fn drained(&self) {
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            if self.open() == 0 {
                return;
            }
            freed.await;
        }
    }

    /// Gives a slot to a connection from `ip` at `now`; when every slot is
    /// taken, closes the oldest starting connection if it is old enough.
    pub fn admit(self: &Arc<Self>, ip: IpAddr, now: Instant) -> Result<Admitted, Refused> {
        let mut state = self.lock();
        let held = state.per_ip.get(&ip).copied().unwrap_or(0);
        if self.max_per_ip.is_some_and(|max| held >= max.get()) {
            return Err(Refused::PerIp);
        }
        let mut evicted = false;
        if state.open >= self.max
            && let Some(id) = self.evictable(&state, now)
            && let Some(oldest) = state.starting.remove(&id)
        {
            // Released here, under the lock, so the count is right at once;
            // its task closes the connection when it sees the signal.
            if !oldest.released.swap(true, Ordering::AcqRel) {
                state.open -= 1;
                decrement(&mut state.per_ip, oldest.ip);
            }
            oldest.evicted.notify_one();
            evicted = true;
        }
        let id = state.next_id;
        state.next_id += 1;
        state.open += 1;
        *state.per_ip.entry(ip).or_default() += 1;
        let shared = Arc::new(Shared {
            ip,
            since: now,
            serving: AtomicBool::new(false),
            released: AtomicBool::new(false),
            evicted: Notify::new(),
        });
        state.starting.insert(id, shared.clone());
        drop(state);
        Ok(Admitted {
            slot: Slot {
                id,
                slots: self.clone(),
                shared,
            },
            evicted,
        })
    }
}

fn decrement(per_ip: &mut HashMap<IpAddr, usize>, ip: IpAddr) {
    if let Some(n) = per_ip.get_mut(&ip) {
        *n -= 1;
        if *n == 0 {
            per_ip.remove(&ip);
        }
    }
}

impl Slot {
    /// Marks the connection as serving (its first request arrived); it
    /// can no longer be evicted or cut for being slow to start.
    pub fn serving(&self) {
        if self.shared.serving.load(Ordering::Acquire) {
            return;
        }
        let mut state = self.slots.lock();
        self.shared.serving.store(true, Ordering::Release);
        state.starting.remove(&self.id);
    }

    /// Whether the first request has arrived.
    pub fn is_serving(&self) -> bool {
        self.shared.serving.load(Ordering::Acquire)
    }

    /// Resolves when the connection is evicted to make room.
    pub async fn evicted(&self) {
        self.shared.evicted.notified().await;
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut state = self.slots.lock();
        state.starting.remove(&self.id);
        if !self.shared.released.swap(true, Ordering::AcqRel) {
            state.open -= 1;
            decrement(&mut state.per_ip, self.shared.ip);
        }
        drop(state);
        self.slots.freed.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([127, 0, 0, last])
    }

    fn released(admitted: &Admitted) -> bool {
        admitted.slot.shared.released.load(Ordering::Acquire)
    }

    #[test]
    fn a_full_server_evicts_its_oldest_starting_connection_and_never_a_serving_one() {
        let slots = Slots::new(3, None, Duration::from_millis(100));
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let a = slots.admit(ip(2), at(0)).unwrap();
        let b = slots.admit(ip(2), at(10)).unwrap();
        let c = slots.admit(ip(1), at(20)).unwrap();
        assert!(!a.evicted && !b.evicted && !c.evicted);
        a.slot.serving();
        assert_eq!((slots.open(), slots.starting()), (3, 2));
        // Full: b is the oldest starting one (a is serving), old enough.
        let d = slots.admit(ip(1), at(200)).unwrap();
        assert!(d.evicted);
        assert!(released(&b) && !released(&a));
        assert_eq!(slots.open(), 3);
        // Dropping the evicted slot gives nothing back twice.
        drop(b);
        assert_eq!(slots.open(), 3);
        c.slot.serving();
        d.slot.serving();
        // Every slot serving: up to as many again are admitted, then none.
        let mut more = Vec::new();
        for n in 0..3 {
            let admitted = slots.admit(ip(3), at(300 + n)).unwrap();
            assert!(!admitted.evicted);
            admitted.slot.serving();
            more.push(admitted);
        }
        assert_eq!(slots.wait(at(400)), Wait::Freed);
        drop(more);
        assert_eq!(slots.wait(at(400)), Wait::No);
    }

    #[test]
    fn a_young_starting_connection_is_not_closed_for_room() {
        let slots = Slots::new(1, None, Duration::from_millis(250));
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let a = slots.admit(ip(2), at(0)).unwrap();
        // Too young to close: b is admitted beyond the limit.
        let b = slots.admit(ip(1), at(100)).unwrap();
        assert!(!b.evicted && !released(&a));
        assert_eq!(slots.wait(at(100)), Wait::For(Duration::from_millis(150)));
        assert_eq!(slots.wait(at(250)), Wait::No);
        // a is old enough now; b (younger) is kept.
        let c = slots.admit(ip(1), at(260)).unwrap();
        assert!(c.evicted && released(&a) && !released(&b));
        assert_eq!(slots.open(), 2);
    }

    #[test]
    fn one_address_holds_at_most_its_share() {
        let slots = Slots::new(100, NonZeroUsize::new(2), Duration::ZERO);
        let now = Instant::now();
        let a = slots.admit(ip(2), now).unwrap();
        let _b = slots.admit(ip(2), now).unwrap();
        assert_eq!(slots.admit(ip(2), now).unwrap_err(), Refused::PerIp);
        let _c = slots.admit(ip(3), now).unwrap();
        drop(a);
        assert!(slots.admit(ip(2), now).is_ok());
    }

    #[test]
    fn an_evicted_connection_frees_its_address_share() {
        let slots = Slots::new(1, NonZeroUsize::new(1), Duration::ZERO);
        let now = Instant::now();
        let a = slots.admit(ip(2), now).unwrap();
        let b = slots.admit(ip(3), now).unwrap();
        assert!(b.evicted);
        // ip(2)'s connection was evicted: it may connect again (and evict b).
        let again = slots.admit(ip(2), now).unwrap();
        assert!(again.evicted);
        drop(a);
        drop(b);
        assert_eq!(slots.open(), 1);
        drop(again);
        assert_eq!(slots.open(), 0);
    }

    #[tokio::test]
    async fn room_waits_for_a_slot_when_twice_the_limit_is_serving() {
        let slots = Slots::new(1, None, Duration::ZERO);
        let a = slots.admit(ip(1), Instant::now()).unwrap();
        a.slot.serving();
        let b = slots.admit(ip(1), Instant::now()).unwrap();
        b.slot.serving();
        let waiting = tokio::spawn({
            let slots = slots.clone();
            async move { slots.room().await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished());
        drop(a);
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("room after the slot was given back")
            .unwrap();
        drop(b);
        slots.drained().await;
    }
}
