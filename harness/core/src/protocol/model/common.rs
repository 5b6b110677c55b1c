//! Building blocks shared by every area: scalars, `_meta`, identities,
//! annotations, content blocks and resource contents.

use super::tasks::TASKS_CAPABILITY;
use crate::protocol::cite;
use crate::protocol::meta_key;
use crate::protocol::shape::{Alt, Field, Named, SCHEMA_001, Shape, Tagged, Variant, Versions, opt, req};
use crate::version::ProtocolVersion::*;

pub(super) static ANY: Shape = Shape::Any;
pub(super) static STR: Shape = Shape::Str;
pub(super) static BOOL: Shape = Shape::Boolean;
pub(super) static INT: Shape = Shape::Integer { min: None };
pub(super) static NUM: Shape = Shape::Number { min: None, max: None };
/// A JSON object with anything inside.
pub(super) static OBJECT: Shape = Shape::Map(&ANY);
pub(super) static STR_ARRAY: Shape = Shape::Array {
    items: &STR,
    max_items: None,
};
pub(super) static STR_MAP: Shape = Shape::Map(&STR);

/// An array of `items`, any length.
pub(super) const fn array(items: &'static Shape) -> Shape {
    Shape::Array {
        items,
        max_items: None,
    }
}

/// An alternative present in every version.
pub(super) const fn alt(shape: &'static Shape) -> Alt {
    Alt {
        versions: Versions::ALL,
        shape,
    }
}

/// A variant of a tagged union, present in every version.
pub(super) const fn variant(value: &'static str, shape: &'static Shape) -> Variant {
    Variant {
        value,
        versions: Versions::ALL,
        shape,
    }
}

pub(super) static REQUEST_ID: Shape = Shape::Named(&Named {
    name: "RequestId",
    requirement: cite::RPC_002,
    shape: Shape::AnyOf(&[alt(&STR), alt(&INT)]),
});

pub(super) static PROGRESS_TOKEN: Shape = Shape::Named(&Named {
    name: "ProgressToken",
    requirement: cite::PROG_001,
    shape: Shape::AnyOf(&[alt(&STR), alt(&INT)]),
});

pub(super) static ROLE: Shape = Shape::Enum(&["assistant", "user"]);

/// The log levels, least severe first.
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

pub(super) static LOGGING_LEVEL: Shape = Shape::Named(&Named {
    name: "LoggingLevel",
    requirement: cite::LOG_002,
    shape: Shape::Enum(&LOG_LEVELS),
});

pub(super) static ICON: Shape = Shape::Object(&[
    req("src", &STR),
    opt("mimeType", &STR),
    opt("sizes", &STR_ARRAY),
    opt("theme", &Shape::Enum(&["dark", "light"])),
]);

static ICON_LIST: Shape = array(&ICON);

/// `icons`, on implementations, tools, prompts, resources and links.
pub(super) const ICONS: Field = opt("icons", &ICON_LIST).since(V2025_11_25);

/// `_meta` on data types, where it arrived in 2025-06-18.
pub(super) const META: Field = opt("_meta", &OBJECT).since(V2025_06_18);

pub(super) static IMPLEMENTATION: Shape = Shape::Named(&Named {
    name: "Implementation",
    requirement: SCHEMA_001,
    shape: Shape::Object(&[
        req("name", &STR),
        req("version", &STR),
        opt("title", &STR).since(V2025_06_18),
        opt("description", &STR).since(V2025_11_25),
        opt("websiteUrl", &STR).since(V2025_11_25),
        ICONS,
    ]),
});

pub(super) static CLIENT_CAPABILITIES: Shape = Shape::Named(&Named {
    name: "ClientCapabilities",
    requirement: SCHEMA_001,
    shape: Shape::Object(&[
        opt("experimental", &Shape::Map(&OBJECT)),
        opt(
            "roots",
            &Shape::Object(&[opt("listChanged", &BOOL).until(V2025_11_25)]),
        ),
        opt(
            "sampling",
            &Shape::Object(&[
                opt("context", &OBJECT).since(V2025_11_25),
                opt("tools", &OBJECT).since(V2025_11_25),
            ]),
        ),
        opt(
            "elicitation",
            &Shape::Object(&[
                opt("form", &OBJECT).since(V2025_11_25),
                opt("url", &OBJECT).since(V2025_11_25),
            ]),
        )
        .since(V2025_06_18),
        TASKS_CAPABILITY,
        opt("extensions", &Shape::Map(&OBJECT)).since(V2026_07_28),
    ]),
});

pub(super) static SERVER_CAPABILITIES: Shape = Shape::Named(&Named {
    name: "ServerCapabilities",
    requirement: SCHEMA_001,
    shape: Shape::Object(&[
        opt("experimental", &Shape::Map(&OBJECT)),
        opt("logging", &OBJECT),
        opt("completions", &OBJECT).since(V2025_03_26),
        opt("prompts", &Shape::Object(&[opt("listChanged", &BOOL)])),
        opt(
            "resources",
            &Shape::Object(&[opt("subscribe", &BOOL), opt("listChanged", &BOOL)]),
        ),
        opt("tools", &Shape::Object(&[opt("listChanged", &BOOL)])),
        TASKS_CAPABILITY,
        opt("extensions", &Shape::Map(&OBJECT)).since(V2026_07_28),
    ]),
});

/// `params._meta` of a request: a progress token in every version, the
/// per-request protocol fields from 2026-07-28.
pub(super) static REQUEST_META: Shape = Shape::Named(&Named {
    name: "RequestMetaObject",
    requirement: cite::MODN_001,
    shape: Shape::Object(&[
        opt("progressToken", &PROGRESS_TOKEN),
        req(meta_key::PROTOCOL_VERSION, &STR).since(V2026_07_28),
        req(meta_key::CLIENT_CAPABILITIES, &CLIENT_CAPABILITIES).since(V2026_07_28),
        opt(meta_key::CLIENT_INFO, &IMPLEMENTATION).since(V2026_07_28),
        opt(meta_key::LOG_LEVEL, &LOGGING_LEVEL).since(V2026_07_28),
    ]),
});

/// `_meta` of request params: required from 2026-07-28.
pub(super) const REQUEST_META_FIELD: Field = opt("_meta", &REQUEST_META).required_since(V2026_07_28);

/// `_meta` of what servers ask of clients (requests up to 2025-11-25, input
/// requests after): never the per-request protocol fields, which only
/// clients send.
pub(super) const SERVER_REQUEST_META_FIELD: Field = opt("_meta", &REQUEST_META).until(V2025_11_25);

/// `_meta` of notification params.
pub(super) const NOTIFICATION_META_FIELD: Field = opt("_meta", &NOTIFICATION_META);

static NOTIFICATION_META: Shape =
    Shape::Object(&[opt(meta_key::SUBSCRIPTION_ID, &REQUEST_ID).since(V2026_07_28)]);

/// `_meta` of results.
pub(super) const RESULT_META_FIELD: Field = opt("_meta", &RESULT_META);

static RESULT_META: Shape = Shape::Object(&[opt(meta_key::SERVER_INFO, &IMPLEMENTATION).since(V2026_07_28)]);

/// `resultType` on every result from 2026-07-28. The official schema leaves
/// it an open string; the spec lists two values. Its absence is judged by
/// [`super::MethodSpec::check_result`], under RPC-015.
pub(super) const RESULT_TYPE_FIELD: Field = opt(
    "resultType",
    &Shape::Named(&Named {
        name: "ResultType",
        requirement: cite::RPC_015,
        shape: Shape::Enum(&["complete", "input_required"]),
    }),
)
.since(V2026_07_28);

/// Params with nothing but `_meta` (ping, `server/discover`).
pub(super) static REQUEST_PARAMS: Shape = Shape::Object(&[REQUEST_META_FIELD]);

/// Params of a server's request with nothing but `_meta` (`roots/list`).
pub(super) static SERVER_REQUEST_PARAMS: Shape = Shape::Object(&[SERVER_REQUEST_META_FIELD]);

/// Params of notifications with nothing but `_meta`.
pub(super) static NOTIFICATION_PARAMS: Shape = Shape::Object(&[NOTIFICATION_META_FIELD]);

/// Params of paginated list requests.
pub(super) static PAGINATED_PARAMS: Shape = Shape::Object(&[opt("cursor", &STR), REQUEST_META_FIELD]);

/// `ttlMs`: how long a cacheable result stays fresh (from 2026-07-28). Its
/// absence is judged by [`super::MethodSpec::check_result`], under CACHE-001.
pub(super) const TTL_FIELD: Field = opt(
    "ttlMs",
    &Shape::Named(&Named {
        name: "ttlMs",
        requirement: cite::CACHE_001,
        shape: Shape::Integer { min: Some(0) },
    }),
)
.since(V2026_07_28);

/// `cacheScope`: who may share a cached result (from 2026-07-28).
pub(super) const CACHE_SCOPE_FIELD: Field = opt(
    "cacheScope",
    &Shape::Named(&Named {
        name: "cacheScope",
        requirement: cite::CACHE_001,
        shape: Shape::Enum(&["public", "private"]),
    }),
)
.since(V2026_07_28);

/// A result with no members of its own.
pub(super) static EMPTY_RESULT: Shape = Shape::Object(&[RESULT_META_FIELD, RESULT_TYPE_FIELD]);

pub(super) static ANNOTATIONS: Shape = Shape::Named(&Named {
    name: "Annotations",
    requirement: cite::RES_009,
    shape: Shape::Object(&[
        opt("audience", &array(&ROLE)),
        opt(
            "priority",
            &Shape::Number {
                min: Some(0.0),
                max: Some(1.0),
            },
        ),
        opt("lastModified", &STR).since(V2025_06_18),
    ]),
});

const ANNOTATIONS_FIELD: Field = opt("annotations", &ANNOTATIONS);

pub(super) static TEXT_CONTENT: Shape = Shape::Object(&[
    req("type", &Shape::Const("text")),
    req("text", &STR),
    ANNOTATIONS_FIELD,
    META,
]);

pub(super) static IMAGE_CONTENT: Shape = Shape::Object(&[
    req("type", &Shape::Const("image")),
    req("data", &STR),
    req("mimeType", &STR),
    ANNOTATIONS_FIELD,
    META,
]);

pub(super) static AUDIO_CONTENT: Shape = Shape::Object(&[
    req("type", &Shape::Const("audio")),
    req("data", &STR),
    req("mimeType", &STR),
    ANNOTATIONS_FIELD,
    META,
]);

pub(super) static RESOURCE_LINK: Shape = Shape::Named(&Named {
    name: "ResourceLink",
    requirement: cite::RES_002,
    shape: Shape::Object(&[
        req("type", &Shape::Const("resource_link")),
        req("uri", &STR),
        req("name", &STR),
        opt("title", &STR),
        opt("description", &STR),
        opt("mimeType", &STR),
        opt("size", &INT),
        ANNOTATIONS_FIELD,
        ICONS,
        META,
    ]),
});

pub(super) static TEXT_RESOURCE_CONTENTS: Shape =
    Shape::Object(&[req("uri", &STR), req("text", &STR), opt("mimeType", &STR), META]);

pub(super) static BLOB_RESOURCE_CONTENTS: Shape =
    Shape::Object(&[req("uri", &STR), req("blob", &STR), opt("mimeType", &STR), META]);

/// One item of `resources/read` contents, or an embedded resource.
pub(super) static RESOURCE_CONTENTS: Shape = Shape::Named(&Named {
    name: "ResourceContents",
    requirement: cite::RES_002,
    shape: Shape::AnyOf(&[alt(&TEXT_RESOURCE_CONTENTS), alt(&BLOB_RESOURCE_CONTENTS)]),
});

pub(super) static EMBEDDED_RESOURCE: Shape = Shape::Object(&[
    req("type", &Shape::Const("resource")),
    req("resource", &RESOURCE_CONTENTS),
    ANNOTATIONS_FIELD,
    META,
]);

/// A content block of tool results and prompt messages.
pub(super) static CONTENT_BLOCK: Shape = Shape::Tagged(&Tagged {
    tag: "type",
    default: None,
    variants: &[
        variant("text", &TEXT_CONTENT),
        variant("image", &IMAGE_CONTENT),
        Variant {
            value: "audio",
            versions: Versions::since(V2025_03_26),
            shape: &AUDIO_CONTENT,
        },
        Variant {
            value: "resource_link",
            versions: Versions::since(V2025_06_18),
            shape: &RESOURCE_LINK,
        },
        variant("resource", &EMBEDDED_RESOURCE),
    ],
    requirement: None,
});

/// `structuredContent`: an object up to 2025-11-25, any JSON value after.
pub(super) static STRUCTURED_CONTENT: Shape = Shape::ByVersion(&[
    Alt {
        versions: Versions::between(V2025_06_18, V2025_11_25),
        shape: &OBJECT,
    },
    Alt {
        versions: Versions::since(V2026_07_28),
        shape: &ANY,
    },
]);
