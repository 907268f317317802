use super::*;

const EVENTS: &str = concat!(
    r#"{"involvedObject":{"kind":"Pod","namespace":"default","name":"web-0","uid":"u"},"reason":"BackOff","message":"m","source":{"component":"kubelet","host":"node-1"},"type":"Warning","at":"2024-05-01T10:00:00Z"}"#,
    "\n",
    "not json\n",
    r#"{"involvedObject":{"kind":"Pod","namespace":"default","name":"web-0","uid":"u"},"reason":"BackOff","message":"m","source":{"component":"kubelet","host":"node-1"},"type":"Warning","at":"2024-05-01T10:00:10Z"}"#,
    "\n",
);

/// The native engine with default options, fresh or restored.
fn native(saved: Saved) -> Result<Native<ReplayStore>, String> {
    native_engine(&Options::default(), Output::Decisions, saved)
}

/// A resumable replay of `input` with its state in `dir`; `on_start`
/// gets the stopper. Returns the ending, stdout and stderr.
fn run_with(
    dir: &Path,
    input: &'static str,
    every: u64,
    on_start: impl FnOnce(Stopper) -> Result<(), String>,
) -> Result<(Ending, String, String), String> {
    let (mut out, mut errors) = (Vec::new(), Vec::new());
    let open = move || {
        dump::read_stream("", input.as_bytes(), None, dump::Options::default())
            .map_err(|e| e.to_string())
    };
    let ending = replay_resumable(
        open,
        Run {
            mode: Mode::Legacy,
            output: Output::Decisions,
            checkpoints: &Checkpoints {
                dir: dir.to_path_buf(),
                every: NonZeroU64::new(every).unwrap(),
            },
        },
        native,
        on_start,
        &mut out,
        &mut errors,
    )?;
    Ok((
        ending,
        String::from_utf8(out).unwrap(),
        String::from_utf8(errors).unwrap(),
    ))
}

fn run(dir: &Path, input: &'static str, every: u64) -> (Ending, String, String) {
    run_with(dir, input, every, |_| Ok(())).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hushd-state-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

#[test]
fn state_round_trips_and_resumes() {
    let dir = scratch("resume");
    let (ending, out, _) = run(&dir, EVENTS, 1000);
    let Ending::Input {
        replayed: summary,
        read,
    } = ending
    else {
        panic!("{ending:?}")
    };
    assert_eq!((summary.events_in, summary.bad_input), (2, 1));
    assert_eq!((read.events, read.bad_records()), (2, 1));
    assert_eq!(out.lines().count(), 2);
    let state = State::load(&dir).unwrap().unwrap();
    assert_eq!(state.consumed, 3);
    assert!(!dir.join(STATE_TMP).exists());

    // Everything was consumed: a second run prints nothing more and
    // keeps the counts.
    let (ending, out, errors) = run(&dir, EVENTS, 1000);
    assert!(errors.starts_with("hushd: restored 3 records of state from "));
    assert_eq!(out, "");
    let Ending::Input {
        replayed: summary, ..
    } = ending
    else {
        panic!("{ending:?}")
    };
    assert_eq!((summary.events_in, summary.bad_input), (2, 1));
    assert_eq!(summary.stats.observed, 2);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn damaged_state_files_are_refused() {
    let dir = scratch("damaged");
    run(&dir, EVENTS, 1);
    let good = fs::read(dir.join(STATE_FILE)).unwrap();
    assert!(State::decode(&good).is_ok());
    assert_eq!(
        State::decode(b"nonsense").unwrap_err(),
        "not a hushd state file"
    );
    assert!(State::decode(&good[..good.len() - 1]).is_err());
    let mut newer = good.clone();
    newer[6] = 3;
    assert!(State::decode(&newer).unwrap_err().contains("version 3"));
    fs::write(dir.join(STATE_FILE), b"HUSHD\0").unwrap();
    let refused = run_with(&dir, EVENTS, 1, |_| Ok(()));
    assert!(refused.unwrap_err().contains("truncated"));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_stop_request_saves_the_state_and_a_later_run_goes_on() {
    let dir = scratch("stop");
    let (ending, out, errors) = run_with(&dir, EVENTS, 1000, |stopper| {
        stopper.stop();
        Ok(())
    })
    .unwrap();
    assert!(
        matches!(ending, Ending::Stopped { consumed: 0 }),
        "{ending:?}"
    );
    assert_eq!(out, "");
    assert!(
        errors.contains("stopped; state of 0 records saved"),
        "{errors}"
    );
    assert_eq!(State::load(&dir).unwrap().unwrap().consumed, 0);
    let (ending, out, _) = run(&dir, EVENTS, 1000);
    assert!(matches!(ending, Ending::Input { .. }), "{ending:?}");
    assert_eq!(out.lines().count(), 2);
    fs::remove_dir_all(&dir).unwrap();
}
