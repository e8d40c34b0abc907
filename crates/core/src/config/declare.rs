//! The macro that turns the one list of settings (in `mod.rs`) into everything a setting needs:
//! the resolved [`Settings`](super::Settings) with its defaults, the [`SettingsLayer`](super::SettingsLayer)
//! one source sets, the rule that puts a layer over the settings, and the [`KEYS`](super::KEYS)
//! table (which sources may set a key, its documentation, its TypeScript type).

/// The resolved type of a setting: its own type when it has a default, else optional.
macro_rules! resolved_type {
    ($ty:ty, $default:expr) => { $ty };
    ($ty:ty) => { Option<$ty> };
}

/// The built-in default of a setting: the declared one, else unset.
macro_rules! resolved_default {
    ($default:expr) => {
        $default
    };
    () => {
        None
    };
}

/// Whether a setting is unset by default (it has no default).
macro_rules! is_optional {
    ($default:expr) => {
        false
    };
    () => {
        true
    };
}

/// The TypeScript type of a setting: the declared one, else its Rust type's.
macro_rules! ts_type {
    ($ty:ty, $ts:literal) => {
        $ts
    };
    ($ty:ty) => {
        <$ty as $crate::config::typescript::TsType>::TS
    };
}

/// Declares every setting once:
///
/// ```text
/// /// What it does (the documentation every front-end shows). Default …
/// "jsonKey" rust_name: Type [= default], in [Sources] [read "checker"] [skip "is_default"] [ts "type"];
/// ```
///
/// A setting without a default is optional (`Option<Type>`, unset by default). `read` names the
/// function that checks a layer's value (it reads an `Option<Type>`), `skip` leaves the resolved
/// value out of JSON when it holds, `ts` gives the TypeScript type when `Type`'s is not the one a
/// user writes.
macro_rules! declare_settings {
    ($(
        $(#[doc = $doc:literal])*
        $key:literal $name:ident : $ty:ty $(= $default:expr)?,
            in [$($source:ident),+]
            $(read $read:literal)?
            $(skip $skip:literal)?
            $(ts $ts:literal)?;
    )*) => {
        /// The resolved settings of one comparison: the built-in defaults with each source's
        /// layer put over them, lowest first ([`Settings::resolve`]).
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(default)]
        pub struct Settings {
            $(
                $(#[doc = $doc])*
                #[serde(rename = $key)]
                $(#[serde(skip_serializing_if = $skip)])?
                pub $name: resolved_type!($ty $(, $default)?),
            )*
        }

        impl Default for Settings {
            fn default() -> Self {
                Self { $($name: resolved_default!($($default)?),)* }
            }
        }

        /// The settings one source sets (Playwright's `expect.toHaveScreenshot`, the config file,
        /// a call's options), each checked as it is read; unset keys leave the layer below.
        #[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct SettingsLayer {
            $(
                #[serde(rename = $key)]
                $(#[serde(deserialize_with = $read)])?
                pub $name: Option<$ty>,
            )*
        }

        impl Settings {
            /// These settings with `layer` over them: each key the layer sets replaces the value
            /// (lists too: a call's `mask` is the whole mask).
            pub fn over(mut self, layer: &SettingsLayer) -> Self {
                $(
                    if let Some(value) = &layer.$name {
                        self.$name = value.clone().into();
                    }
                )*
                self
            }
        }

        /// Every setting: its key, the sources that may set it, its documentation and TypeScript
        /// type, in declaration order (the order error messages list known keys in).
        pub const KEYS: &[Key] = &[
            $(
                Key {
                    name: $key,
                    sources: &[$(Source::$source),+],
                    doc: concat!($($doc, "\n"),*),
                    ts: ts_type!($ty $(, $ts)?),
                    optional: is_optional!($($default)?),
                },
            )*
        ];
    };
}
