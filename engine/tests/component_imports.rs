//! The component imports only the host's clock and sink (and the
//! interface of types they share, which has no functions): no WASI. The
//! component checked is the one embedded in hushd.

use hush_engine::component::Plugin;

#[test]
fn the_component_imports_only_clock_and_sink() {
    let plugin = Plugin::embedded().expect("the embedded component loads");
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
