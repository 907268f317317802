//! The shared vectors replayed against the correlator component in
//! wasmtime (the build in target/component): one test per file, and the
//! same lines as the native core.

use std::sync::Arc;

use hush_core::Timestamp;
use hush_core::store::MemoryStore;
use hush_tests::{compare, load, replay, test_name, vector_files};
use hushd::component::{ComponentEngine, Guards, HostClock, HostSink, Plugin};
use libtest_mimic::{Arguments, Trial};

fn plugin() -> Arc<Plugin> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../target/component/hush.component.wasm"
    );
    let bytes = std::fs::read(path).unwrap_or_else(|e| {
        panic!("{path}: {e}; build the component first with scripts/build-component.sh")
    });
    Plugin::new(&bytes).expect("the component loads")
}

fn main() {
    let plugin = plugin();
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
                    HostSink::Memory(MemoryStore::new()),
                    Guards::default(),
                )?;
                compare(&vector.expect, &replay(&vector, engine)).map_err(Into::into)
            })
        })
        .collect();
    libtest_mimic::run(&Arguments::from_args(), trials).exit();
}
