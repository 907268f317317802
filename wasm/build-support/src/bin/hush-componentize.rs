//! `hush-componentize MODULE.wasm COMPONENT.wasm`: encodes a guest's core
//! module (built for wasm32-unknown-unknown, with wit-bindgen's
//! component-type section) as a component, as hush-engine's build script does
//! for the correlator it embeds, and prints both sizes. For the guests
//! that only non-Rust hosts load (the JSON codec, `scripts/build-codec.sh`).

use std::path::Path;
use std::process::ExitCode;

use hush_build_support::{encode, write_atomically};

fn componentize(input: &Path, output: &Path) -> Result<(), String> {
    let (component, module_size) = encode(input)?;
    write_atomically(output, &component)?;
    println!(
        "{}: {} bytes (module {module_size} bytes)",
        output.display(),
        component.len(),
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [input, output] => componentize(Path::new(input), Path::new(output)),
        _ => Err("usage: hush-componentize MODULE.wasm COMPONENT.wasm".into()),
    };
    hush_build_support::exit(result)
}
