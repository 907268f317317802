//! The correlator, differentially: any sequence of observe, tick,
//! snapshot, restore (of the snapshot as taken, or damaged), wire batches
//! and finish calls, in legacy or series mode, with fuzzed options and a
//! sink that fails on a fuzzed script, run by the native core and by the
//! correlator component in wasmtime (the one hushd embeds). Every output
//! must be the same: each decision and timer line, the outcome bytes of
//! `observe-encoded` or its error, whether a snapshot restores, the
//! snapshots' bytes, the counters and what each sink stored. A panic in
//! the core panics natively; a trap in the component is a difference.
#![no_main]

use arbitrary::{Result, Unstructured};
use hush_core::Mode;
use hush_core::format::wire::Encoder;
use hush_fuzz::engines::Pair;
use hush_fuzz::{fuzzed, sink};
use libfuzzer_sys::fuzz_target;

/// Most calls an input makes (a longer input is cut there).
const MAX_CALLS: usize = 200;

// The component is compiled before the first input, so the compile
// (seconds on a busy machine) does not count against that input's timeout.
fuzz_target!(init: {
    hush_fuzz::seeds::write_if_asked("correlator");
    hush_fuzz::engines::plugin();
}, |data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    let mode = if u.arbitrary()? {
        Mode::Series
    } else {
        Mode::Legacy
    };
    let options = fuzzed::options(u, mode)?;
    let script = sink::script(u)?;
    let mut pair = Pair::new(options, script);
    for _ in 0..MAX_CALLS {
        if u.is_empty() {
            break;
        }
        match u.int_in_range(0..=15)? {
            0..=8 => {
                let event = fuzzed::event(u)?;
                pair.advance(fuzzed::step(u)?);
                pair.observe(&event);
            }
            9 | 10 => {
                pair.advance(fuzzed::step(u)?);
                pair.tick();
            }
            11 => {
                let bytes = pair.snapshot();
                pair.restore(&bytes)
                    .expect("a snapshot just taken restores");
                assert_eq!(
                    pair.snapshot(),
                    bytes,
                    "a restored snapshot snapshots the same"
                );
            }
            12 => {
                let mut bytes = pair.snapshot();
                damage(u, &mut bytes)?;
                let _ = pair.restore(&bytes);
            }
            13 => {
                let batch = batch(u, &pair)?;
                pair.observe_encoded(&batch);
            }
            14 => pair.finish(),
            _ => pair.check(),
        }
    }
    pair.finish();
    pair.check();
    pair.snapshot();
    Ok(())
}

/// Changes `bytes` as storage or a careless hand would: a flipped bit, a
/// byte set, bytes cut off the end or inserted; then, now and then, the
/// checksum made right again (or the version set to 3, which has none),
/// so the damage reaches the payload's decoder.
fn damage(u: &mut Unstructured<'_>, bytes: &mut Vec<u8>) -> Result<()> {
    let len = bytes.len();
    if len == 0 {
        return Ok(());
    }
    let at = u.int_in_range(0..=len - 1)?;
    match u.int_in_range(0..=3)? {
        0 => bytes[at] ^= 1 << u.int_in_range(0..=7)?,
        1 => bytes[at] = u.arbitrary()?,
        2 => bytes.truncate(at),
        _ => {
            let byte = u.arbitrary()?;
            bytes.insert(at, byte);
        }
    }
    match u.int_in_range(0..=2)? {
        0 => hush_fuzz::snapshot::reseal(bytes),
        1 => hush_fuzz::snapshot::unchecked(bytes),
        _ => {}
    }
    Ok(())
}

/// A wire batch of a few fuzzed events, now and then damaged.
fn batch(u: &mut Unstructured<'_>, pair: &Pair) -> Result<Vec<u8>> {
    let mut encoder = Encoder::new();
    let mut out = Vec::new();
    let mut now = pair.now;
    for _ in 0..u.int_in_range(1..=4)? {
        let event = fuzzed::event(u)?;
        now = now.plus_nanos(fuzzed::step(u)?);
        let at = u.arbitrary::<bool>()?.then_some(now);
        encoder.encode(&mut out, &event, at);
    }
    if u.ratio(1, 4)? && !out.is_empty() {
        let at = u.int_in_range(0..=out.len() - 1)?;
        out[at] = u.arbitrary()?;
    }
    Ok(out)
}
