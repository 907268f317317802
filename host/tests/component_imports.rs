//! The component imports only the host's clock and sink (and the
//! interface of types they share, which has no functions): no WASI.

use hushd::component::Plugin;

#[test]
fn the_component_imports_only_clock_and_sink() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../target/component/hush.component.wasm"
    );
    let bytes = std::fs::read(path).unwrap_or_else(|e| {
        panic!("{path}: {e}; build the component first with scripts/build-component.sh")
    });
    let plugin = Plugin::new(&bytes).expect("the component loads");
    let mut imports = plugin.imports();
    imports.sort();
    assert_eq!(
        imports,
        [
            "hush:correlator/clock@0.1.0",
            "hush:correlator/sink@0.1.0",
            "hush:correlator/types@0.1.0",
        ]
    );
}
