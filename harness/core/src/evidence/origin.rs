//! URLs a server named for its client to send requests to, refused by the
//! HTTP transport because they lie on another origin than the URL the user
//! gave: nothing, credentials least of all, was sent there.

/// One refused URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedUrl {
    /// What named it (`the endpoint event`).
    pub named_by: String,
    /// The URL as named (resolved against the URL given).
    pub url: String,
    /// The origin of the URL the user gave (`http://127.0.0.1:8000`).
    pub origin: String,
}
