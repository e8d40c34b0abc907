//! Checks a tool call against the tool's own input schema before it runs, so a mistake comes
//! back naming what is wrong: the unknown tool with the list of tools, or the argument and the
//! type it needs. (rmcp's own messages say only "tool not found" or give serde's type error
//! without the field.)

use rmcp::model::Tool;
use serde_json::{Map, Value};

/// The problem with calling `name` with `arguments`, if any, as a message for the caller.
pub fn check_call(tools: &[Tool], name: &str, arguments: Option<&Map<String, Value>>) -> Option<String> {
    let Some(tool) = tools.iter().find(|t| t.name == name) else {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        return Some(format!("unknown tool {name:?}; the tools are {}", names.join(", ")));
    };
    let properties = tool.input_schema.get("properties").and_then(Value::as_object)?;
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
fn json_types(schema: &Value) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => {
            // A branch that does not say its type (a `$ref` to a struct) allows anything.
            let branches: Vec<Vec<String>> =
                schema.get("anyOf").and_then(Value::as_array).into_iter().flatten().map(json_types).collect();
            if branches.iter().any(Vec::is_empty) { Vec::new() } else { branches.concat() }
        }
    }
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
        assert_eq!(check_call(&tools, "get_diff", Some(&args(json!({"name": "a", "region": 2, "extra": 1})))), None);
        let with_struct = [tool(json!({"type": "object", "properties": {
            "viewport": {"anyOf": [{"$ref": "#/$defs/ViewportArg"}, {"type": "null"}]}
        }}))];
        assert_eq!(check_call(&with_struct, "get_diff", Some(&args(json!({"viewport": {"width": 320}})))), None);
        assert_eq!(check_call(&tools, "get_diff", None), None);
    }
}
