//! `hush-componentize MODULE.wasm COMPONENT.wasm`: encodes a guest's core
//! module (built for wasm32-unknown-unknown, with wit-bindgen's
//! component-type section) as a component, with wit-component, and prints
//! both sizes. hushd's build script does this for the correlator, which it
//! embeds; this is for the guests that only non-Rust hosts load (the JSON
//! codec, `scripts/build-codec.sh`).

use std::path::Path;
use std::process::ExitCode;

fn componentize(input: &Path, output: &Path) -> Result<(), String> {
    let module =
        std::fs::read(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    let component = wit_component::ComponentEncoder::default()
        .module(&module)
        .and_then(|encoder| encoder.validate(true).encode())
        .map_err(|e| format!("cannot encode {} as a component: {e:#}", input.display()))?;
    if let Some(dir) = output.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(output, &component)
        .map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    println!(
        "{}: {} bytes (module {} bytes)",
        output.display(),
        component.len(),
        module.len()
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [input, output] => componentize(Path::new(input), Path::new(output)),
        _ => Err("usage: hush-componentize MODULE.wasm COMPONENT.wasm".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hush-componentize: {e}");
            ExitCode::FAILURE
        }
    }
}
