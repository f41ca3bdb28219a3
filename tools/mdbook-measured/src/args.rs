//! A directive's `key=value` arguments as the typed struct of its kind (serde), with errors that
//! name what a key or value could be.
//!
//! Each kind's arguments are a struct deriving `Deserialize` with
//! `#[serde(deny_unknown_fields, rename_all = "kebab-case")]`; [`from`] fills it from the
//! directive's arguments:
//!
//! - a value is read as its field's type asks: text, a whole number or a number, `true` or
//!   `false`, a list separated by commas (`cases=0,1` for a `Vec`), a choice (an enum made with
//!   [`choice!`]) or anything else that parses from text (`#[serde(try_from = "String")]`);
//! - a field renamed `*` takes every key the struct's other fields do not, as a struct of its
//!   own: the selectors every kind that reads a record shares (serde's `flatten` would do the
//!   same but lose the names of the allowed keys, which the error for an unknown key gives);
//! - a field renamed `over.` takes the keys `over.KEY` as a struct of its own (a ratio's
//!   denominator);
//! - a key no field takes fails with the keys allowed; a value its field cannot take fails with
//!   the key, the value and what the value could be; a required key left out fails with the
//!   kind's example.

use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use std::collections::BTreeMap;
use std::fmt;

/// Makes an enum whose values a directive names (`show=mark`): its variants, each with its name
/// and, if it needs one, a few words on what it means; `FromStr` and `Deserialize` fail on any
/// other name with the list of names (and their words): "use line (a sweep over cases), bar
/// or dot".
macro_rules! choice {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident = $text:literal $(($help:literal))?
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in the order the error for a wrong one names them.
            #[allow(dead_code)]
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value's name, as a directive writes it.
            #[allow(dead_code)]
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($text => Ok($name::$variant),)+
                    _ => Err($crate::args::choices(&[
                        $(($text, choice!(@help $($help)?))),+
                    ])),
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
    (@help) => { None };
    (@help $help:literal) => { Some($help) };
}

/// "use a, b (what b means) or c".
pub fn choices(all: &[(&str, Option<&str>)]) -> String {
    let named: Vec<String> = all
        .iter()
        .map(|(name, help)| match help {
            Some(help) => format!("{name} ({help})"),
            None => name.to_string(),
        })
        .collect();
    match named.as_slice() {
        [] => "no value is allowed".into(),
        [one] => format!("use {one}"),
        [rest @ .., last] => format!("use {} or {last}", rest.join(", ")),
    }
}

/// Fills `T` from a directive's arguments; `kind` and `example` are for the messages.
pub fn from<T: DeserializeOwned>(
    kind: &str,
    example: &str,
    args: &BTreeMap<String, String>,
) -> Result<T, String> {
    let args = Args {
        kind,
        prefix: String::new(),
        entries: args.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect(),
        outer: Vec::new(),
    };
    T::deserialize(args).map_err(|e| match e.missing {
        true => format!("{} (e.g. `{example}`)", e.message),
        false => e.message,
    })
}

/// Why arguments do not fit their kind.
#[derive(Debug)]
pub struct Error {
    message: String,
    /// The message names the key (and value) it is about already.
    located: bool,
    /// A required key is left out (the message then gives the kind's example).
    missing: bool,
}

impl Error {
    fn located(message: String) -> Error {
        Error {
            message,
            located: true,
            missing: false,
        }
    }

    /// Names the key and value the message is about, unless it does already.
    fn at(self, key: &str, value: &str) -> Error {
        if self.located {
            return self;
        }
        Error {
            message: format!("{key}=`{value}`: {}", self.message),
            located: true,
            ..self
        }
    }
}

impl de::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Error {
            message: message.to_string(),
            located: false,
            missing: false,
        }
    }

    fn missing_field(field: &'static str) -> Self {
        let key = match field.strip_suffix('.') {
            Some(prefix) => format!("{prefix}.KEY=VALUE"),
            None => format!("{field}=…"),
        };
        Error {
            message: format!("missing `{key}`"),
            located: true,
            missing: true,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Arguments for one struct: the directive's, or those left to a field renamed `*` or grouped
/// under one renamed `over.`.
struct Args<'a> {
    kind: &'a str,
    /// `over.` for the keys grouped under it, as the directive writes them.
    prefix: String,
    /// (key without the prefix, value).
    entries: Vec<(&'a str, &'a str)>,
    /// The keys the enclosing structs take themselves, for the message on an unknown one.
    outer: Vec<String>,
}

/// A field's value: text, or the arguments of a struct within.
enum Item<'a> {
    Text { key: String, value: &'a str },
    Args(Args<'a>),
}

impl<'de> de::Deserializer<'de> for Args<'_> {
    type Error = Error;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let Args {
            kind,
            prefix,
            entries,
            outer,
        } = self;
        let splices = fields.contains(&"*");
        let groups = |f: &&str| f.ends_with('.');
        let own: Vec<String> = fields
            .iter()
            .filter(|f| **f != "*")
            .map(|f| match groups(f) {
                true => format!("{prefix}{f}*"),
                false => format!("{prefix}{f}"),
            })
            .collect();
        let mut items: Vec<(&'static str, Item)> = Vec::new();
        let mut grouped: BTreeMap<&'static str, Vec<(&str, &str)>> = BTreeMap::new();
        let mut rest = Vec::new();
        for (key, value) in entries {
            if let Some(field) = fields
                .iter()
                .find(|f| **f == key && **f != "*" && !groups(f))
            {
                items.push((
                    field,
                    Item::Text {
                        key: format!("{prefix}{key}"),
                        value,
                    },
                ));
            } else if let Some(group) = fields.iter().find(|f| groups(f) && key.starts_with(**f)) {
                grouped
                    .entry(group)
                    .or_default()
                    .push((&key[group.len()..], value));
            } else if splices {
                rest.push((key, value));
            } else {
                let allowed: Vec<String> = own.iter().chain(&outer).cloned().collect();
                return Err(Error::located(format!(
                    "unknown argument `{prefix}{key}` for `{kind}` (allowed: {})",
                    allowed.join(", ")
                )));
            }
        }
        for (group, entries) in grouped {
            items.push((
                group,
                Item::Args(Args {
                    kind,
                    prefix: format!("{prefix}{group}"),
                    entries,
                    outer: Vec::new(),
                }),
            ));
        }
        if splices {
            items.push((
                "*",
                Item::Args(Args {
                    kind,
                    prefix: prefix.clone(),
                    entries: rest,
                    outer: own.into_iter().chain(outer).collect(),
                }),
            ));
        }
        visitor.visit_map(Fields {
            items: items.into_iter(),
            next: None,
        })
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let entries = self
            .entries
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()));
        visitor.visit_map(de::value::MapDeserializer::new(entries))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// A struct's fields, one after the other.
struct Fields<'a> {
    items: std::vec::IntoIter<(&'static str, Item<'a>)>,
    next: Option<Item<'a>>,
}

impl<'de> de::MapAccess<'de> for Fields<'_> {
    type Error = Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((field, item)) = self.items.next() else {
            return Ok(None);
        };
        self.next = Some(item);
        seed.deserialize(field.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.next.take() {
            Some(Item::Text { key, value }) => {
                seed.deserialize(Text(value)).map_err(|e| e.at(&key, value))
            }
            Some(Item::Args(args)) => seed.deserialize(args),
            None => Err(de::Error::custom("a value without its key")),
        }
    }
}

/// One value as written, read as its field's type asks.
struct Text<'a>(&'a str);

impl Text<'_> {
    fn parse<T: std::str::FromStr>(&self, what: &str) -> Result<T, Error> {
        self.0.parse().map_err(|_| de::Error::custom(what))
    }
}

macro_rules! numbers {
    ($($method:ident $visit:ident $ty:ty: $what:literal;)+) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                visitor.$visit(self.parse::<$ty>($what)?)
            }
        )+
    };
}

impl<'de> de::Deserializer<'de> for Text<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_str(self.0)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            _ => Err(de::Error::custom("use true or false")),
        }
    }

    numbers! {
        deserialize_u8 visit_u8 u8: "a whole number";
        deserialize_u16 visit_u16 u16: "a whole number";
        deserialize_u32 visit_u32 u32: "a whole number";
        deserialize_u64 visit_u64 u64: "a whole number";
        deserialize_i8 visit_i8 i8: "a whole number";
        deserialize_i16 visit_i16 i16: "a whole number";
        deserialize_i32 visit_i32 i32: "a whole number";
        deserialize_i64 visit_i64 i64: "a whole number";
        deserialize_f32 visit_f32 f32: "a number";
        deserialize_f64 visit_f64 f64: "a number";
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_seq(List(self.0.split(',')))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(self.0.into_deserializer())
    }

    serde::forward_to_deserialize_any! {
        i128 u128 char str string bytes byte_buf unit unit_struct tuple tuple_struct map struct
        identifier ignored_any
    }
}

/// A list's items (`a,b,c`), each read as the list's type asks.
struct List<'a>(std::str::Split<'a, char>);

impl<'de> de::SeqAccess<'de> for List<'_> {
    type Error = Error;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let Some(item) = self.0.next() else {
            return Ok(None);
        };
        seed.deserialize(Text(item))
            .map(Some)
            .map_err(|e| match e.located {
                true => e,
                false => de::Error::custom(format!("`{item}`: {}", e.message)),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    choice! {
        #[derive(Default)]
        enum Shade {
            #[default]
            Light = "light",
            Dark = "dark" ("for print"),
        }
    }

    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields, rename_all = "kebab-case")]
    struct Inner {
        record: String,
        machine: Option<String>,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields, rename_all = "kebab-case")]
    struct Over {
        record: Option<String>,
        case: Option<String>,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields, rename_all = "kebab-case")]
    struct Demo {
        #[serde(rename = "*")]
        inner: Inner,
        #[serde(rename = "over.")]
        over: Option<Over>,
        #[serde(default)]
        shade: Shade,
        reps: Option<u32>,
        #[serde(default)]
        cases: Vec<String>,
        #[serde(default)]
        breaks: Vec<u32>,
        log: Option<bool>,
        ref_line: Option<String>,
    }

    fn demo(args: &[(&str, &str)]) -> Result<Demo, String> {
        let args = args
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        from("demo", "{{#measure demo record=ch01}}", &args)
    }

    #[test]
    fn values_are_read_as_their_fields_ask() {
        let d = demo(&[
            ("record", "ch01"),
            ("over.case", "4"),
            ("shade", "dark"),
            ("reps", "5"),
            ("cases", "0,$workers"),
            ("breaks", "15,30"),
            ("log", "false"),
            ("ref-line", "10:a tenth"),
        ])
        .unwrap();
        assert_eq!(
            d,
            Demo {
                inner: Inner {
                    record: "ch01".into(),
                    machine: None
                },
                over: Some(Over {
                    record: None,
                    case: Some("4".into())
                }),
                shade: Shade::Dark,
                reps: Some(5),
                cases: vec!["0".into(), "$workers".into()],
                breaks: vec![15, 30],
                log: Some(false),
                ref_line: Some("10:a tenth".into()),
            }
        );
        let d = demo(&[("record", "ch01"), ("machine", "m")]).unwrap();
        assert_eq!((d.over, d.shade, d.cases), (None, Shade::Light, vec![]));
        assert_eq!(d.inner.machine.as_deref(), Some("m"));
    }

    #[test]
    fn an_unknown_key_names_the_allowed_ones_at_every_depth() {
        let e = demo(&[("record", "ch01"), ("recrod", "ch01")]).unwrap_err();
        assert_eq!(
            e,
            "unknown argument `recrod` for `demo` (allowed: record, machine, over.*, shade, reps, cases, breaks, log, ref-line)"
        );
        let e = demo(&[("record", "ch01"), ("over.colour", "red")]).unwrap_err();
        assert_eq!(
            e,
            "unknown argument `over.colour` for `demo` (allowed: over.record, over.case)"
        );
    }

    #[test]
    fn a_bad_value_names_its_key_and_what_it_could_be() {
        let e = |args: &[(&str, &str)]| {
            let mut all = vec![("record", "ch01")];
            all.extend_from_slice(args);
            demo(&all).unwrap_err()
        };
        assert_eq!(
            e(&[("shade", "pink")]),
            "shade=`pink`: use light or dark (for print)"
        );
        assert_eq!(e(&[("reps", "five")]), "reps=`five`: a whole number");
        assert_eq!(e(&[("log", "yes")]), "log=`yes`: use true or false");
        assert_eq!(
            e(&[("breaks", "15,lunch")]),
            "breaks=`15,lunch`: `lunch`: a whole number"
        );
    }

    #[test]
    fn a_missing_key_gives_the_example() {
        assert_eq!(
            demo(&[("machine", "m")]).unwrap_err(),
            "missing `record=…` (e.g. `{{#measure demo record=ch01}}`)"
        );
    }

    #[test]
    fn choices_read_as_a_sentence() {
        assert_eq!(choices(&[("a", None)]), "use a");
        assert_eq!(
            choices(&[("a", None), ("b", Some("bee")), ("c", None)]),
            "use a, b (bee) or c"
        );
        assert_eq!("dark".parse::<Shade>(), Ok(Shade::Dark));
        assert_eq!(
            Shade::ALL.iter().map(|s| s.name()).collect::<Vec<_>>(),
            ["light", "dark"]
        );
    }
}
