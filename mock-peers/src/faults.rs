//! The shape of a fault list: each fault of a broken fixture peer has a
//! command-line name, the requirement it breaks, a sentence, and the
//! scenarios that catch it.

/// Declares a fault enum: `faults! { Name, "server"; Variant = "name",
/// "REQ-001", "What it does." => ["scenario.id", ...]; ... }`. The scenarios
/// after `=>` are the ones a fault sweep runs the fault against: each of them
/// must flag the requirement (so the list is never wider than the truth).
macro_rules! faults {
    ($enum:ident, $peer:literal; $($variant:ident = $name:literal, $requirement:literal, $what:literal $(=> [$($scenario:literal),* $(,)?])?;)*) => {
        /// One deliberate divergence from the spec.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $enum {
            $(#[doc = $what] $variant,)*
        }

        // A fault cites its requirement as a string: it must be a catalogue
        // ID, checked when the crate compiles.
        const _: () = {
            $(assert!(
                mcp_conform_core::requirements::id::is_catalogued($requirement),
                concat!("fault ", $name, " cites ", $requirement, ", which the catalogue does not have")
            );)*
        };

        impl $enum {
            /// Every fault, in a stable order.
            pub const ALL: &[$enum] = &[$($enum::$variant),*];

            /// The name used on the command line (`--fault NAME`).
            pub fn name(self) -> &'static str {
                match self { $($enum::$variant => $name,)* }
            }

            /// The requirement the fault breaks.
            pub fn requirement(self) -> &'static str {
                match self { $($enum::$variant => $requirement,)* }
            }

            /// What the faulty peer does, in a sentence.
            pub fn description(self) -> &'static str {
                match self { $($enum::$variant => $what,)* }
            }

            /// The ids of the bundled scenarios that catch the fault under
            /// its requirement (the scenarios a fault sweep runs).
            pub fn caught_by(self) -> &'static [&'static str] {
                match self { $($enum::$variant => &[$($($scenario),*)?],)* }
            }
        }

        impl std::str::FromStr for $enum {
            type Err = String;

            fn from_str(name: &str) -> Result<Self, Self::Err> {
                $enum::ALL
                    .iter()
                    .copied()
                    .find(|f| f.name() == name)
                    .ok_or_else(|| {
                        let names: Vec<&str> = $enum::ALL.iter().map(|f| f.name()).collect();
                        format!("unknown {} fault {name:?}; known faults: {}", $peer, names.join(", "))
                    })
            }
        }

        impl std::fmt::Display for $enum {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

pub(crate) use faults;
