//! Embeds the correlator component if it has been built
//! (`scripts/build-component.sh`); hushd then runs it by default.

use std::path::PathBuf;

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("..");
    let component = root.join("target/component/hush.component.wasm");
    println!("cargo::rustc-check-cfg=cfg(hush_embedded_component)");
    println!("cargo::rerun-if-changed={}", component.display());
    if component.exists() {
        println!("cargo::rustc-cfg=hush_embedded_component");
        println!(
            "cargo::rustc-env=HUSH_COMPONENT_PATH={}",
            component.canonicalize().unwrap().display()
        );
    }
}
