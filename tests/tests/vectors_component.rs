//! The shared vectors replayed against the correlator component in
//! wasmtime (the build embedded in hushd): one test per file, and the
//! same lines as the native core.

use hush_core::Timestamp;
use hush_core::write::memory::MemoryStore;
use hush_tests::{compare, load, replay, test_name, vector_files};
use hushd::component::{ComponentEngine, Guards, HostClock, Plugin};
use libtest_mimic::{Arguments, Trial};

fn main() {
    let plugin = Plugin::embedded().expect("the embedded component loads");
    let trials = vector_files()
        .into_iter()
        .map(|path| {
            let plugin = plugin.clone();
            Trial::test(test_name(&path), move || {
                let vector = load(&path);
                let engine = ComponentEngine::new(
                    plugin,
                    &vector.options(),
                    HostClock::Virtual(Timestamp::EPOCH),
                    MemoryStore::new(),
                    Guards::default(),
                    None,
                )?;
                compare(&vector.expect, &replay(&vector, engine)).map_err(Into::into)
            })
        })
        .collect();
    libtest_mimic::run(&Arguments::from_args(), trials).exit();
}
