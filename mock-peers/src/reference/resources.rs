//! Static resources, one resource template, reads and subscriptions.

use mcp_conform_core::version::{Era, ProtocolVersion};
use serde_json::{Map, Value, json};

use super::pagination;
use super::session::Session;
use crate::base64;
use mcp_conform_core::wire::jsonrpc::{RpcError, code};

/// Resources per `resources/list` page.
const PAGE_SIZE: usize = 3;

/// The one resource template: `ref://items/{id}`.
const ITEM_PREFIX: &str = "ref://items/";

/// What a resource holds.
#[derive(Debug, Clone, Copy)]
enum Body {
    Text(&'static str),
    Blob(&'static [u8]),
}

#[derive(Debug, Clone, Copy)]
struct StaticResource {
    uri: &'static str,
    name: &'static str,
    title: &'static str,
    mime_type: &'static str,
    body: Body,
}

/// A 1x1 transparent PNG.
const PIXEL_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00,
    0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00,
    0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01,
    0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

const RESOURCES: [StaticResource; 8] = [
    StaticResource {
        uri: "ref://text/readme",
        name: "readme",
        title: "Readme",
        mime_type: "text/plain",
        body: Body::Text("This is the mcp-conform reference server.\n"),
    },
    StaticResource {
        uri: "ref://text/guide.md",
        name: "guide",
        title: "Guide",
        mime_type: "text/markdown",
        body: Body::Text("# Guide\n\nCall the tools to exercise the protocol.\n"),
    },
    StaticResource {
        uri: "ref://text/config.json",
        name: "config",
        title: "Configuration",
        mime_type: "application/json",
        body: Body::Text("{\"pageSize\":3}"),
    },
    StaticResource {
        uri: "ref://text/notes",
        name: "notes",
        title: "Notes",
        mime_type: "text/plain",
        body: Body::Text("Notes: nothing to see here.\n"),
    },
    StaticResource {
        uri: "ref://text/counter",
        name: "counter",
        title: "Counter",
        mime_type: "text/plain",
        body: Body::Text("0"),
    },
    StaticResource {
        uri: "ref://text/empty",
        name: "empty",
        title: "Empty text",
        mime_type: "text/plain",
        body: Body::Text(""),
    },
    StaticResource {
        uri: "ref://blob/pixel.png",
        name: "pixel",
        title: "One pixel",
        mime_type: "image/png",
        body: Body::Blob(PIXEL_PNG),
    },
    StaticResource {
        uri: "ref://blob/bytes.bin",
        name: "bytes",
        title: "Some bytes",
        mime_type: "application/octet-stream",
        body: Body::Blob(&[0, 1, 2, 3, 254, 255]),
    },
];

fn size(body: Body) -> usize {
    match body {
        Body::Text(text) => text.len(),
        Body::Blob(bytes) => bytes.len(),
    }
}

fn describe(resource: &StaticResource, version: ProtocolVersion) -> Value {
    let mut out = json!({
        "uri": resource.uri,
        "name": resource.name,
        "description": format!("{} ({})", resource.title, resource.mime_type),
        "mimeType": resource.mime_type,
        "size": size(resource.body),
    });
    if version >= ProtocolVersion::V2025_06_18 {
        out["title"] = json!(resource.title);
    }
    out
}

/// `resources/list`.
pub(crate) fn list(version: ProtocolVersion, params: &Map<String, Value>) -> Result<Value, RpcError> {
    let page = pagination::page("resources", &RESOURCES, params, PAGE_SIZE)?;
    let resources: Vec<Value> = page.items.iter().map(|r| describe(r, version)).collect();
    Ok(page.finish(Map::from_iter([(
        "resources".to_owned(),
        Value::Array(resources),
    )])))
}

/// `resources/templates/list`.
pub(crate) fn list_templates(
    version: ProtocolVersion,
    params: &Map<String, Value>,
) -> Result<Value, RpcError> {
    let mut template = json!({
        "uriTemplate": format!("{ITEM_PREFIX}{{id}}"),
        "name": "item",
        "description": "An item by id (letters, digits and dashes).",
        "mimeType": "text/plain",
    });
    if version >= ProtocolVersion::V2025_06_18 {
        template["title"] = json!("Item");
    }
    let page = pagination::page("templates", &[template], params, PAGE_SIZE)?;
    Ok(page.finish(Map::from_iter([(
        "resourceTemplates".to_owned(),
        Value::Array(page.items.clone()),
    )])))
}

/// The id in a URI matching the template, if it does.
fn item_id(uri: &str) -> Option<&str> {
    let id = uri.strip_prefix(ITEM_PREFIX)?;
    let valid = !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    valid.then_some(id)
}

fn uri_param(params: &Map<String, Value>) -> Result<&str, RpcError> {
    params
        .get("uri")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("a string `uri` is required"))
}

/// A missing resource: -32002 up to 2025-11-25, -32602 from 2026-07-28 (RES-005).
fn not_found(uri: &str, version: ProtocolVersion) -> RpcError {
    let code = match version.era() {
        Era::Stateful => code::LEGACY_RESOURCE_NOT_FOUND,
        Era::Stateless => code::INVALID_PARAMS,
    };
    RpcError::new(code, format!("resource not found: {uri}")).with_data(json!({ "uri": uri }))
}

/// `resources/read`.
pub(crate) fn read(params: &Map<String, Value>, version: ProtocolVersion) -> Result<Value, RpcError> {
    let uri = uri_param(params)?;
    let contents = if let Some(resource) = RESOURCES.iter().find(|r| r.uri == uri) {
        match resource.body {
            Body::Text(text) => json!({ "uri": uri, "mimeType": resource.mime_type, "text": text }),
            Body::Blob(bytes) => {
                json!({ "uri": uri, "mimeType": resource.mime_type, "blob": base64::encode(bytes) })
            }
        }
    } else if let Some(id) = item_id(uri) {
        json!({ "uri": uri, "mimeType": "text/plain", "text": format!("Item {id}") })
    } else {
        return Err(not_found(uri, version));
    };
    Ok(json!({ "contents": [contents] }))
}

/// Whether `uri` names a resource (a static one or an item of the template).
pub(crate) fn exists(uri: &str) -> bool {
    RESOURCES.iter().any(|r| r.uri == uri) || item_id(uri).is_some()
}

/// `resources/subscribe`.
pub(crate) fn subscribe(session: &Session, params: &Map<String, Value>) -> Result<Value, RpcError> {
    let uri = uri_param(params)?;
    if !exists(uri) {
        return Err(not_found(uri, session.version()));
    }
    session.subscribe(uri);
    Ok(json!({}))
}

/// `resources/unsubscribe`: succeeds whether or not a subscription existed.
pub(crate) fn unsubscribe(session: &Session, params: &Map<String, Value>) -> Result<Value, RpcError> {
    session.unsubscribe(uri_param(params)?);
    Ok(json!({}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_uris_are_resource_not_found_with_the_code_of_the_era() {
        let params = json!({"uri": "ref://nope"}).as_object().unwrap().clone();
        let legacy = read(&params, ProtocolVersion::V2025_11_25).unwrap_err();
        assert_eq!(
            (legacy.code, legacy.data),
            (-32002, Some(json!({"uri": "ref://nope"})))
        );
        let stateless = read(&params, ProtocolVersion::V2026_07_28).unwrap_err();
        assert_eq!(stateless.code, -32602);
        let item = json!({"uri": "ref://items/42"}).as_object().unwrap().clone();
        assert_eq!(
            read(&item, ProtocolVersion::V2026_07_28).unwrap()["contents"][0]["text"],
            json!("Item 42")
        );
    }

    #[test]
    fn seven_or_more_resources_over_several_pages() {
        assert!(RESOURCES.len() >= 7);
        let first = list(ProtocolVersion::V2024_11_05, &Map::new()).unwrap();
        assert_eq!(first["resources"].as_array().unwrap().len(), PAGE_SIZE);
        assert!(first["resources"][0].get("title").is_none());
        assert!(first["nextCursor"].is_string());
    }
}
