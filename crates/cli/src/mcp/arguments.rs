//! Checks a tool call against the tool's own input schema before it runs, so a mistake comes
//! back naming what is wrong: the unknown tool with the list of tools, an argument the tool does
//! not take with the ones it does, a required argument left out, or the argument and the type it
//! needs. (rmcp's own messages say only "tool not found" or give serde's type error without the
//! field, and most tools' parsing drops an argument it does not know: a `waitMs` sent to a tool
//! that reads `wait_ms` would silently keep the default.)

use std::collections::BTreeMap;

use rmcp::model::Tool;
use serde::Deserialize;
use serde_json::{Map, Value};

/// The parts of a tool's input schema (as schemars writes it) the check reads.
#[derive(Debug, Default, Deserialize)]
struct InputSchema {
    /// The arguments the tool takes, by name (in name order, as the messages list them).
    #[serde(default)]
    properties: BTreeMap<String, PropertySchema>,
    /// The arguments it cannot do without.
    #[serde(default)]
    required: Vec<String>,
}

/// One argument's schema: its JSON type, or the branches of an `anyOf` (how schemars writes
/// `Option<T>`).
#[derive(Debug, Default, Deserialize)]
struct PropertySchema {
    #[serde(default, rename = "type")]
    types: Option<JsonTypes>,
    #[serde(default, rename = "anyOf")]
    any_of: Vec<PropertySchema>,
}

/// `type`: one JSON type's name or a list of them.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum JsonTypes {
    One(String),
    Some(Vec<String>),
}

/// The problem with calling `name` with `arguments`, if any, as a message for the caller.
pub fn check_call(tools: &[Tool], name: &str, arguments: Option<&Map<String, Value>>) -> Option<String> {
    let Some(tool) = tools.iter().find(|t| t.name == name) else {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        return Some(format!("unknown tool {name:?}; the tools are {}", names.join(", ")));
    };
    // A schema this check cannot read checks nothing: the tool's own parsing still decides.
    let schema = InputSchema::deserialize(Value::Object(tool.input_schema.as_ref().clone())).unwrap_or_default();
    let properties = &schema.properties;
    for key in arguments.into_iter().flatten().map(|(key, _)| key) {
        if properties.contains_key(key) {
            continue;
        }
        let known: Vec<&str> = properties.keys().map(String::as_str).collect();
        let close = known.iter().find(|k| loose(k) == loose(key)).map(|k| format!(" (did you mean {k:?}?)"));
        let takes = if known.is_empty() {
            format!("{name} takes no arguments")
        } else {
            format!("its arguments are {}", known.join(", "))
        };
        return Some(format!("{name}: unknown argument {key:?}{}; {takes}", close.unwrap_or_default()));
    }
    for key in &schema.required {
        if !arguments.is_some_and(|a| a.contains_key(key)) {
            let wanted = properties.get(key).map(json_types).unwrap_or_default();
            let wanted = if wanted.is_empty() { String::new() } else { format!(" ({})", wanted.join(" or ")) };
            return Some(format!("{name}: argument {key:?} is required{wanted}"));
        }
    }
    for (key, value) in arguments.into_iter().flatten() {
        let Some(schema) = properties.get(key) else { continue };
        let wanted = json_types(schema);
        if !wanted.is_empty() && !wanted.iter().any(|t| has_type(value, t)) {
            let got = value.to_string();
            let got =
                if got.chars().count() > 60 { format!("{}…", got.chars().take(60).collect::<String>()) } else { got };
            return Some(format!("{name}: argument \"{key}\" must be {}, got {got}", wanted.join(" or ")));
        }
    }
    None
}

/// The JSON types a property schema allows: `type` as a string or list, or the types of its
/// `anyOf` branches (how schemars writes `Option<T>`); empty when the schema does not say (then
/// anything passes here and the tool's own parsing decides).
fn json_types(schema: &PropertySchema) -> Vec<String> {
    match &schema.types {
        Some(JsonTypes::One(t)) => vec![t.clone()],
        Some(JsonTypes::Some(ts)) => ts.clone(),
        None => {
            // A branch that does not say its type (a `$ref` to a struct) allows anything.
            let branches: Vec<Vec<String>> = schema.any_of.iter().map(json_types).collect();
            if branches.iter().any(Vec::is_empty) { Vec::new() } else { branches.concat() }
        }
    }
}

/// An argument name without case and separators, so `include_passed` finds `includePassed`.
fn loose(key: &str) -> String {
    key.chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_lowercase()).collect()
}

fn has_type(value: &Value, json_type: &str) -> bool {
    match json_type {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;

    fn tool(schema: Value) -> Tool {
        Tool::new("get_diff", "d", Arc::new(schema.as_object().unwrap().clone()))
    }

    #[test]
    fn arguments_name_the_unknown_tool_and_the_mistyped_argument() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string"},
            "region": {"type": ["integer", "null"], "format": "uint"},
            "y": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
        }});
        let tools = [tool(schema)];
        let args = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(check_call(&tools, "nope", None).unwrap(), "unknown tool \"nope\"; the tools are get_diff");
        assert_eq!(
            check_call(&tools, "get_diff", Some(&args(json!({"name": 42})))).unwrap(),
            "get_diff: argument \"name\" must be string, got 42"
        );
        assert_eq!(
            check_call(&tools, "get_diff", Some(&args(json!({"name": "a", "region": "two"})))).unwrap(),
            "get_diff: argument \"region\" must be integer or null, got \"two\""
        );
        assert!(
            check_call(&tools, "get_diff", Some(&args(json!({"y": "x"}))))
                .unwrap()
                .contains("\"y\" must be integer or null")
        );
        assert_eq!(check_call(&tools, "get_diff", Some(&args(json!({"name": "a", "region": 2})))), None);
        assert_eq!(check_call(&tools, "get_diff", None), None);
        let with_struct = [tool(json!({"type": "object", "properties": {
            "viewport": {"anyOf": [{"$ref": "#/$defs/ViewportArg"}, {"type": "null"}]}
        }}))];
        assert_eq!(check_call(&with_struct, "get_diff", Some(&args(json!({"viewport": {"width": 320}})))), None);
    }

    #[test]
    fn arguments_the_tool_does_not_take_or_needs_are_named() {
        // Left to the tool's parsing, an unknown argument is dropped: the call runs on defaults
        // and its answer does not say that the argument did nothing.
        let schema = json!({"type": "object", "required": ["name"], "properties": {
            "includePassed": {"type": "boolean"},
            "name": {"type": "string"},
            "wait_ms": {"type": ["integer", "null"]}
        }});
        let tools = [
            tool(schema),
            Tool::new(
                "get_report",
                "r",
                Arc::new(json!({"type": "object", "properties": {}}).as_object().unwrap().clone()),
            ),
        ];
        let args = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(
            check_call(&tools, "get_diff", Some(&args(json!({"name": "a", "include_passed": true})))).unwrap(),
            "get_diff: unknown argument \"include_passed\" (did you mean \"includePassed\"?); its arguments are includePassed, name, wait_ms"
        );
        assert_eq!(
            check_call(&tools, "get_diff", Some(&args(json!({"name": "a", "waitMs": 5000})))).unwrap(),
            "get_diff: unknown argument \"waitMs\" (did you mean \"wait_ms\"?); its arguments are includePassed, name, wait_ms"
        );
        assert_eq!(
            check_call(&tools, "get_diff", Some(&args(json!({"name": "a", "confirmed": false})))).unwrap(),
            "get_diff: unknown argument \"confirmed\"; its arguments are includePassed, name, wait_ms"
        );
        assert_eq!(
            check_call(&tools, "get_report", Some(&args(json!({"x": 1})))).unwrap(),
            "get_report: unknown argument \"x\"; get_report takes no arguments"
        );
        assert_eq!(check_call(&tools, "get_report", Some(&args(json!({})))), None);
        assert_eq!(check_call(&tools, "get_report", None), None);
        assert_eq!(check_call(&tools, "get_diff", None).unwrap(), "get_diff: argument \"name\" is required (string)");
        assert_eq!(
            check_call(&tools, "get_diff", Some(&args(json!({"wait_ms": 5})))).unwrap(),
            "get_diff: argument \"name\" is required (string)"
        );
        assert_eq!(
            check_call(&tools, "get_diff", Some(&args(json!({"name": null})))).unwrap(),
            "get_diff: argument \"name\" must be string, got null"
        );
    }
}
