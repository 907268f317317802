//! The shared vectors replayed against the native core: one test per file.

use hush_core::Recorder;
use hush_core::format::replay::Native;
use hush_core::write::memory::MemoryStore;
use hush_tests::{compare, load, replay, test_name, vector_files};
use libtest_mimic::{Arguments, Trial};

fn main() {
    let trials = vector_files()
        .into_iter()
        .map(|path| {
            Trial::test(test_name(&path), move || {
                let vector = load(&path);
                let engine = Native {
                    recorder: Recorder::new(vector.options())?,
                    sink: MemoryStore::new(),
                };
                compare(&vector.expect, &replay(&vector, engine)).map_err(Into::into)
            })
        })
        .collect();
    libtest_mimic::run(&Arguments::from_args(), trials).exit();
}
