//! Cursor-based pagination shared by the list methods. Cursors are opaque to
//! the client: hex-encoded `<list>@<offset>`, checked on the way back in.

use serde_json::{Map, Value};

use mcp_conform_core::wire::jsonrpc::RpcError;

/// One page of a list and the cursor for the next one, if any.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Page<T> {
    pub items: Vec<T>,
    pub next_cursor: Option<String>,
}

impl<T> Page<T> {
    /// Adds `nextCursor` to a list result when there is a next page.
    pub fn finish(&self, mut result: Map<String, Value>) -> Value {
        if let Some(cursor) = &self.next_cursor {
            result.insert("nextCursor".into(), Value::String(cursor.clone()));
        }
        Value::Object(result)
    }
}

fn encode(list: &str, offset: usize) -> String {
    format!("{list}@{offset}")
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn decode(list: &str, cursor: &str) -> Option<usize> {
    if !cursor.len().is_multiple_of(2) {
        return None;
    }
    let bytes = (0..cursor.len())
        .step_by(2)
        .map(|i| {
            cursor
                .get(i..i + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
        })
        .collect::<Option<Vec<u8>>>()?;
    let text = String::from_utf8(bytes).ok()?;
    let (name, offset) = text.split_once('@')?;
    (name == list).then_some(())?;
    offset.parse().ok()
}

/// Reads the optional `cursor` param and returns that page of `items`.
pub(crate) fn page<T: Clone>(
    list: &str,
    items: &[T],
    params: &Map<String, Value>,
    page_size: usize,
) -> Result<Page<T>, RpcError> {
    let start = match params.get("cursor") {
        None => 0,
        Some(Value::String(cursor)) => decode(list, cursor)
            .filter(|offset| *offset > 0 && *offset < items.len())
            .ok_or_else(|| RpcError::invalid_params(format!("invalid cursor for {list}: {cursor:?}")))?,
        Some(_) => return Err(RpcError::invalid_params("`cursor` must be a string")),
    };
    let end = (start + page_size).min(items.len());
    let next_cursor = (end < items.len()).then(|| encode(list, end));
    Ok(Page {
        items: items[start..end].to_vec(),
        next_cursor,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn params(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn walks_every_page_with_opaque_cursors() {
        let items: Vec<u32> = (0..10).collect();
        let first = page("tools", &items, &Map::new(), 4).unwrap();
        assert_eq!(first.items, vec![0, 1, 2, 3]);
        let cursor = first.next_cursor.unwrap();
        assert!(
            cursor.parse::<u64>().is_err() || cursor.len() > 2,
            "cursor should not be a bare number"
        );
        let second = page("tools", &items, &params(json!({"cursor": cursor})), 4).unwrap();
        assert_eq!(second.items, vec![4, 5, 6, 7]);
        let third = page(
            "tools",
            &items,
            &params(json!({"cursor": second.next_cursor.unwrap()})),
            4,
        )
        .unwrap();
        assert_eq!((third.items, third.next_cursor), (vec![8, 9], None));
    }

    #[test]
    fn rejects_foreign_or_malformed_cursors() {
        let items: Vec<u32> = (0..10).collect();
        for bad in [
            json!("4"),
            json!(encode("resources", 4)),
            json!(encode("tools", 99)),
            json!(3),
            json!("zz"),
        ] {
            let err = page("tools", &items, &params(json!({"cursor": bad})), 4).unwrap_err();
            assert_eq!(err.code, -32602);
        }
    }
}
