//! # hush-build-support
//!
//! What hush's build scripts share: building a wasm guest crate with a
//! nested cargo ([`Guest`]), encoding a guest module as a component
//! ([`encode`]), and writing outputs atomically. `hushd`'s build script
//! builds and embeds the correlator component with it,
//! `hush-proxy-host`'s builds the proxy-wasm plugin, and its CLI,
//! `hush-componentize`, encodes the JSON codec (`scripts/build-codec.sh`).
//!
//! A guest is built for [`GUEST_TARGET`] with the [`GUEST_PROFILE`]
//! profile, in a target directory of its own, so the nested cargo never
//! waits on the outer build's lock; the outer build's cargo and rustc
//! settings are cleared from its environment (`inherited_build_setting`)
//! so its flags, wrappers (clippy) and target do not leak into the guest.

use std::env;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// The guests' target: no WASI, so a component imports only what its WIT
/// world names.
pub const GUEST_TARGET: &str = "wasm32-unknown-unknown";
/// The workspace profile guests are built with.
pub const GUEST_PROFILE: &str = "release-wasm";

/// A build script's (or `hush-componentize`'s) exit: success, or failure
/// with the error on stderr (cargo shows it with the script's output).
pub fn exit(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Where the build script running now works, from what cargo sets.
#[derive(Clone, Debug)]
pub struct BuildScript {
    /// The workspace root.
    pub root: PathBuf,
    /// The script's `OUT_DIR`.
    pub out_dir: PathBuf,
    /// The outer target directory, found from `OUT_DIR`'s place in it
    /// (`None` in a layout other than cargo's usual one).
    pub target_dir: Option<PathBuf>,
}

impl BuildScript {
    /// Reads `CARGO_MANIFEST_DIR` and `OUT_DIR`; the workspace root is the
    /// nearest directory above the crate whose `Cargo.toml` has a
    /// `[workspace]`.
    pub fn from_env() -> Result<BuildScript, String> {
        let manifest_dir = PathBuf::from(var("CARGO_MANIFEST_DIR")?);
        let root = manifest_dir
            .ancestors()
            .skip(1)
            .find(|dir| {
                fs::read_to_string(dir.join("Cargo.toml"))
                    .is_ok_and(|manifest| manifest.lines().any(|l| l.trim() == "[workspace]"))
            })
            .ok_or_else(|| format!("{} is not in a workspace", manifest_dir.display()))?
            .to_path_buf();
        let out_dir = PathBuf::from(var("OUT_DIR")?);
        let target_dir = target_dir_of(&out_dir, env::var("TARGET").ok().as_deref());
        Ok(BuildScript {
            root,
            out_dir,
            target_dir,
        })
    }

    /// The directory `name` of the outer target directory (else of
    /// `OUT_DIR`), for outputs other tools look for at a known place.
    pub fn artifact_dir(&self, name: &str) -> PathBuf {
        self.target_dir
            .as_deref()
            .unwrap_or(&self.out_dir)
            .join(name)
    }
}

/// A guest crate of the workspace that a build script builds.
#[derive(Clone, Copy, Debug)]
pub struct Guest<'a> {
    /// Its package name (its library is built).
    pub package: &'a str,
    /// What it is, for messages: "the correlator component".
    pub what: &'a str,
    /// What it is built from, relative to the workspace root: the build
    /// script runs again when one of them changes.
    pub inputs: &'a [&'a str],
    /// Who needs it and how to do without building it, for the message
    /// when the target is missing: `("hushd embeds the correlator
    /// component", "set HUSH_COMPONENT=FILE to embed a component built
    /// elsewhere")`.
    pub needed_by: (&'a str, &'a str),
}

impl Guest<'_> {
    /// Builds the guest into `target_dir` with a nested cargo and returns
    /// its module's path. Stops with `rustup target add` when the target
    /// is not installed.
    pub fn build(&self, root: &Path, target_dir: &Path) -> Result<PathBuf, String> {
        for input in self.inputs {
            println!("cargo::rerun-if-changed={}", root.join(input).display());
        }
        let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        check_target(&rustc, GUEST_TARGET, self.needed_by)?;
        let package = self.package;
        let mut command = Command::new(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        command
            .current_dir(root)
            .args(["build", "--quiet", "--package", package, "--lib"])
            .args(["--target", GUEST_TARGET, "--profile", GUEST_PROFILE])
            .arg("--target-dir")
            .arg(target_dir);
        for (key, _) in env::vars_os() {
            if inherited_build_setting(&key) {
                command.env_remove(key);
            }
        }
        let status = command
            .status()
            .map_err(|e| format!("cannot run cargo to build {}: {e}", self.what))?;
        if !status.success() {
            return Err(format!(
                "building {} (cargo build -p {package} --target {GUEST_TARGET} --profile \
                 {GUEST_PROFILE}) failed: {status}; its output is above",
                self.what
            ));
        }
        Ok(target_dir
            .join(GUEST_TARGET)
            .join(GUEST_PROFILE)
            .join(format!("{}.wasm", package.replace('-', "_"))))
    }
}

/// Fails with the fix when `target`'s standard library is not installed
/// for `rustc`.
fn check_target(rustc: &OsStr, target: &str, needed_by: (&str, &str)) -> Result<(), String> {
    let output = Command::new(rustc)
        .args(["--print", "target-libdir", "--target", target])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", rustc.to_string_lossy()))?;
    let libdir = String::from_utf8_lossy(&output.stdout);
    if output.status.success() && Path::new(libdir.trim()).is_dir() {
        return Ok(());
    }
    let (who, instead) = needed_by;
    Err(format!(
        "{who}, built for {target}, and that target is not installed: \
         run `rustup target add {target}` (or {instead})"
    ))
}

/// Whether an environment variable is cargo's or rustc's setting for the
/// outer build (its target, flags, wrappers, profile), which a guest build
/// must not inherit. Where cargo finds its registry and network settings,
/// and the jobserver shared with the outer build, are kept.
fn inherited_build_setting(key: &OsStr) -> bool {
    let Some(key) = key.to_str() else {
        return false;
    };
    const KEPT: [&str; 2] = ["CARGO_HOME", "CARGO_MAKEFLAGS"];
    const KEPT_PREFIXES: [&str; 4] = ["CARGO_NET_", "CARGO_HTTP_", "CARGO_REGISTR", "RUSTUP_"];
    const BUILD_SCRIPT: [&str; 7] = [
        "TARGET",
        "HOST",
        "OUT_DIR",
        "OPT_LEVEL",
        "PROFILE",
        "DEBUG",
        "NUM_JOBS",
    ];
    if KEPT.contains(&key) || KEPT_PREFIXES.iter().any(|p| key.starts_with(p)) {
        return false;
    }
    key.starts_with("CARGO") || key.starts_with("RUST") || BUILD_SCRIPT.contains(&key)
}

/// Encodes the guest module at `module_path` (built with wit-bindgen,
/// whose component-type section names its world) as a component; returns
/// the component and the module's size.
pub fn encode(module_path: &Path) -> Result<(Vec<u8>, usize), String> {
    let module =
        fs::read(module_path).map_err(|e| format!("cannot read {}: {e}", module_path.display()))?;
    let component = wit_component::ComponentEncoder::default()
        .module(&module)
        .and_then(|encoder| encoder.validate(true).encode())
        .map_err(|e| {
            format!(
                "cannot encode {} as a component: {e:#}",
                module_path.display()
            )
        })?;
    Ok((component, module.len()))
}

/// Writes `bytes` to `path` (creating its directory) through a temporary
/// file, so a reader never sees half a file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path.parent().ok_or("no parent directory")?;
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let temporary = path.with_extension(format!("tmp{}", std::process::id()));
    fs::write(&temporary, bytes)
        .and_then(|()| fs::rename(&temporary, path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The target directory a build script's `OUT_DIR` lies in:
/// `<target>/[<triple>/]<profile>/build/<package>-<hash>/out`, where the
/// triple's folder is there when the build named a target (`TARGET`).
/// Cargo's `CACHEDIR.TAG` cannot tell: cargo writes it only into a target
/// directory it created itself, and a set-up step may have made `target/`
/// first.
fn target_dir_of(out_dir: &Path, triple: Option<&str>) -> Option<PathBuf> {
    let build = out_dir.ancestors().nth(2)?;
    if build.file_name()? != "build" {
        return None;
    }
    let above_profile = build.parent()?.parent()?;
    let target = match (above_profile.file_name(), triple) {
        (Some(name), Some(triple)) if name == triple => above_profile.parent()?,
        _ => above_profile,
    };
    Some(target.to_path_buf())
}

fn var(key: &str) -> Result<String, String> {
    env::var(key).map_err(|_| format!("cargo did not set {key}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outer_builds_settings_are_cleared_and_the_registrys_kept() {
        for cleared in [
            "CARGO_ENCODED_RUSTFLAGS",
            "RUSTC_WORKSPACE_WRAPPER",
            "CARGO_TARGET_DIR",
            "CARGO_BUILD_TARGET",
            "CARGO_PKG_NAME",
            "RUSTFLAGS",
            "TARGET",
            "PROFILE",
            "OUT_DIR",
        ] {
            assert!(inherited_build_setting(OsStr::new(cleared)), "{cleared}");
        }
        for kept in [
            "CARGO_HOME",
            "CARGO_MAKEFLAGS",
            "CARGO_NET_OFFLINE",
            "CARGO_HTTP_TIMEOUT",
            "CARGO_REGISTRIES_CRATES_IO_PROTOCOL",
            "RUSTUP_TOOLCHAIN",
            "PATH",
            "HOME",
        ] {
            assert!(!inherited_build_setting(OsStr::new(kept)), "{kept}");
        }
    }

    #[test]
    fn the_target_directory_is_found_from_out_dir_with_or_without_a_triple() {
        let host = Path::new("/w/target/debug/build/hushd-0123abcd/out");
        let cross = Path::new("/w/target/wasm32-unknown-unknown/release/build/x-1/out");
        let custom = Path::new("/elsewhere/t/release/build/hushd-1/out");
        let linux = Some("x86_64-unknown-linux-gnu");
        assert_eq!(target_dir_of(host, linux), Some(PathBuf::from("/w/target")));
        assert_eq!(
            target_dir_of(cross, Some("wasm32-unknown-unknown")),
            Some(PathBuf::from("/w/target"))
        );
        assert_eq!(
            target_dir_of(custom, linux),
            Some(PathBuf::from("/elsewhere/t"))
        );
        assert_eq!(target_dir_of(Path::new("/tmp/out"), linux), None);
    }

    #[test]
    fn a_missing_target_says_how_to_add_it() {
        let e = check_target(
            OsStr::new("rustc"),
            "wasm32-no-such-target",
            ("hushd embeds it", "set HUSH_COMPONENT=FILE"),
        )
        .unwrap_err();
        assert_eq!(
            e,
            "hushd embeds it, built for wasm32-no-such-target, and that target is not \
             installed: run `rustup target add wasm32-no-such-target` (or set HUSH_COMPONENT=FILE)"
        );
        check_target(OsStr::new("rustc"), GUEST_TARGET, ("", "")).unwrap();
    }

    #[test]
    fn a_file_that_is_not_a_module_is_not_encoded() {
        let path = env::temp_dir().join(format!("hush-build-support-{}.wasm", std::process::id()));
        write_atomically(&path, b"not wasm").unwrap();
        let e = encode(&path).unwrap_err();
        fs::remove_file(&path).unwrap();
        assert!(
            e.starts_with(&format!(
                "cannot encode {} as a component: ",
                path.display()
            )),
            "{e}"
        );
        let e = encode(&path).unwrap_err();
        assert!(e.starts_with("cannot read "), "{e}");
    }
}
