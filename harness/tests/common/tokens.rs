//! Tokens kept out of outputs: finding any in what a run wrote.

/// The beginnings of JWTs in `text`, whole or cut short: a base64url
/// segment and a dot, the segment a JOSE header (`{"` is `eyJ`) naming
/// its `alg`.
pub fn jwt_beginnings(text: &str) -> Vec<&str> {
    let segment = regex::Regex::new(r"eyJ[A-Za-z0-9_-]*\.").unwrap();
    segment
        .find_iter(text)
        .map(|found| found.as_str())
        .filter(|header| {
            // `e30` is `{}`: the header alone, read as a JWT's.
            mcp_conform_core::auth::readable(&format!("{header}e30.x"))
                .is_some_and(|shown| shown.contains("alg="))
        })
        .collect()
}

/// Every file under `dir`, with its text.
pub fn files_under(dir: &std::path::Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            let text = std::fs::read_to_string(&path).unwrap();
            files.push((path.display().to_string(), text));
        }
    }
    files
}
