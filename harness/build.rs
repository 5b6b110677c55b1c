//! Embeds the bundled scenarios and profiles, so the binary and the library
//! run the suite from any directory, and downstream crates get it too.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let scenarios = root.join("../scenarios");
    println!("cargo:rerun-if-changed={}", scenarios.display());
    let mut files = Vec::new();
    collect(&scenarios, &mut files);
    files.sort();
    let mut code = String::from("/// (path relative to the repository, contents) of every bundled file.\n");
    code.push_str("pub static FILES: &[(&str, &str)] = &[\n");
    for file in &files {
        let relative = file.strip_prefix(root.join("..")).unwrap_or(file);
        let canonical = file.canonicalize().unwrap_or_else(|_| file.clone());
        writeln!(
            code,
            "    ({:?}, include_str!({:?})),",
            relative.display().to_string(),
            canonical.display().to_string()
        )
        .expect("writing to a String");
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("bundled.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            files.push(path);
        }
    }
}
