//! `hush-xtask componentize IN OUT`: turns the guest's core wasm module
//! (built for wasm32-unknown-unknown, with wit-bindgen's component-type
//! section) into a component, and prints its size and the module's.
//!
//! This replaces `wasm-tools component new`; a nested cargo call in a build
//! script would fight the outer build over the target directory lock.

use std::process::ExitCode;

use wit_component::ComponentEncoder;

fn componentize(input: &str, output: &str) -> Result<(), String> {
    let module = std::fs::read(input).map_err(|e| format!("cannot read {input}: {e}"))?;
    let component = ComponentEncoder::default()
        .module(&module)
        .map_err(|e| format!("{input} is not a guest module: {e:#}"))?
        .validate(true)
        .encode()
        .map_err(|e| format!("cannot encode {input} as a component: {e:#}"))?;
    if let Some(dir) = std::path::Path::new(output).parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(output, &component).map_err(|e| format!("cannot write {output}: {e}"))?;
    println!(
        "{output}: {} bytes (module {} bytes)",
        component.len(),
        module.len()
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["componentize", input, output] => componentize(input, output),
        _ => Err("usage: hush-xtask componentize MODULE.wasm COMPONENT.wasm".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hush-xtask: {e}");
            ExitCode::FAILURE
        }
    }
}
