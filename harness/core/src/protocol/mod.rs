//! Our own versioned model of MCP messages, and the checks every frame goes
//! through.
//!
//! - [`shape`]: the shape language, with versions on every field and variant.
//! - [`model`]: every method of every version, its direction, capability
//!   gate, params and result shapes.
//! - [`check`]: the per-connection [`FrameChecker`].
//! - [`client_auth`]: a client's OAuth, judged on what the protected mock
//!   server and the scripted authorization server recorded of it.
//! - [`client_http`]: a client's own rules of Streamable HTTP, judged on
//!   what the mock server recorded of it (not messages, so no frame check).
//! - [`official`]: optional validation against official schema files a user
//!   supplies (`--schema-dir`).

mod check;
pub mod client_auth;
pub mod client_http;
mod content;
pub mod meta_key;
mod model;
pub mod official;
mod poll_clock;
pub mod shape;
mod stateless;
mod task_extension;
mod task_ledger;
mod trace;
mod violation;

pub(crate) use check::envelope_requirement;
pub use check::{FrameChecker, check_message};
pub use model::{
    Flow, Gate, INPUT_REQUIRED, LOG_LEVELS, MemberGate, MethodKind, MethodSpec, PeerRole, Side,
    capability_declared, errors, input_requests, is_input_required, member_gates, method, method_in, methods,
    methods_in, subscriptions, tasks, tasks_extension,
};
pub use stateless::REMOVED_METHODS;
pub use violation::Violation;

/// Declares the requirements the core's rules cite: a `cite` module with one
/// constant per ID (`cite::RPC_009`), and the public list of them all.
///
/// The list is exact by construction: a rule citing an ID not declared here
/// does not compile (`cite::X` is missing), and an ID declared here that no
/// rule cites is dead code, which the build rejects.
macro_rules! cites {
    ($(#[$doc:meta])* $list:ident: $($name:ident),+ $(,)?) => {
        $(#[$doc])*
        pub const $list: &[crate::requirements::RequirementId] = &[$(crate::requirements::id::$name),+];

        /// Typed IDs of the requirements the core's rules cite. One that no
        /// rule cites is an error, so the list never claims coverage the
        /// code does not give.
        #[deny(dead_code)]
        pub(crate) mod cite {
            $(pub(crate) const $name: crate::requirements::RequirementId = crate::requirements::id::$name;)+
        }
    };
}

cites! {
    /// Every requirement the core's rules cite: the frame checker, the
    /// client's HTTP rules and the judge (for coverage listings).
    CHECKED_REQUIREMENTS:
    AUTH_006,
    AUTH_031,
    AUTH_032,
    AUTH_033,
    AUTH_034,
    AUTH_035,
    AUTH_036,
    AUTH_037,
    AUTH_038,
    AUTH_039,
    AUTH_040,
    AUTH_041,
    AUTH_042,
    AUTH_043,
    AUTH_044,
    AUTH_045,
    AUTH_046,
    AUTH_047,
    AUTH_048,
    AUTH_049,
    AUTH_050,
    AUTH_051,
    AUTH_052,
    AUTH_053,
    AUTH_054,
    AUTH_056,
    AUTH_057,
    AUTH_058,
    AUTH_059,
    AUTH_060,
    AUTH_061,
    AUTH_062,
    AUTH_063,
    AUTH_064,
    AUTH_065,
    AUTH_066,
    AUTH_067,
    AUTH_069,
    AUTH_070,
    AUTH_071,
    CACHE_001,
    CACHE_002,
    CANC_001,
    CANC_006,
    COMP_001,
    COMP_002,
    COMP_003,
    ELIC_001,
    ELIC_002,
    ELIC_005,
    ELIC_006,
    ELIC_008,
    ELIC_012,
    ELIC_014,
    ELIC_015,
    HTTP_004,
    HTTP_005,
    HTTP_012,
    HTTP_016,
    HTTP_017,
    HTTP_018,
    HTTP_020,
    HTTP_023,
    HTTP_024,
    JSCH_002,
    LIFE_001,
    LIFE_002,
    LIFE_003,
    LIFE_005,
    LIFE_007,
    LIFE_009,
    LIFE_010,
    LIFE_011,
    LIST_002,
    LIST_003,
    LIST_006,
    LOG_001,
    LOG_002,
    LOG_006,
    META_001,
    META_002,
    MODN_001,
    MODN_003,
    MODN_004,
    MODN_005,
    MODN_007,
    MODN_008,
    MODN_009,
    MODN_012,
    MRTR_001,
    MRTR_002,
    MRTR_003,
    MRTR_004,
    MRTR_006,
    ORIGIN_001,
    PAGE_005,
    PING_001,
    PING_002,
    PROG_001,
    PROG_002,
    PROG_003,
    PROG_004,
    PROG_006,
    PROM_001,
    PROM_004,
    RES_001,
    RES_002,
    RES_003,
    RES_005,
    RES_007,
    RES_008,
    RES_009,
    ROOT_001,
    ROOT_002,
    RPC_001,
    RPC_002,
    RPC_003,
    RPC_004,
    RPC_005,
    RPC_006,
    RPC_007,
    RPC_014,
    RPC_015,
    RPC_017,
    RPC_018,
    RPC_020,
    SAMP_001,
    SAMP_002,
    SAMP_003,
    SAMP_006,
    SAMP_007,
    SAMP_009,
    SCHEMA_001,
    SCHEMA_002,
    STDIO_001,
    STDIO_002,
    STDIO_003,
    STDIO_006,
    STDIO_007,
    SUBS_001,
    SUBS_002,
    SUBS_003,
    SUBS_006,
    TASK_001,
    TASK_002,
    TASK_003,
    TASK_004,
    TASK_005,
    TASK_007,
    TASK_008,
    TASK_010,
    TASKX_002,
    TASKX_006,
    TASKX_007,
    TASKX_008,
    TASKX_009,
    TASKX_010,
    TASKX_011,
    TASKX_012,
    TASKX_015,
    TASKX_016,
    TASKX_019,
    TASKX_020,
    TASKX_022,
    TASKX_024,
    TASKX_025,
    TASKX_027,
    TASKX_028,
    TASKX_030,
    TASKX_033,
    TASKX_034,
    TOOL_001,
    TOOL_002,
    TOOL_003,
    TOOL_007,
    TOOL_009,
}
