"""One error_field for request bodies and skill arguments: the dotted path of the field a schema error is about."""
from jsonschema import Draft202012Validator, exceptions

from kiraos_desktop.core.schema_paths import error_field

SCHEMA = {"type": "object", "required": ["user_id", "items"], "additionalProperties": False,
          "properties": {"user_id": {"type": "string"}, "items": {"type": "array", "items": {
              "type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}}},
          "patternProperties": {"^x-": {}}}


def first_error(instance) -> exceptions.ValidationError:
    return exceptions.best_match(Draft202012Validator(SCHEMA).iter_errors(instance))


def test_paths_of_missing_unknown_and_nested_fields():
    assert error_field(first_error({"items": []}), "body") == "user_id"
    assert error_field(first_error({"user_id": "u", "items": [{"key": 5}]}), "body") == "items.0.key"
    assert error_field(first_error({"user_id": "u", "items": [{}]}), "arguments") == "items.0.key"
    # keys matched by patternProperties are allowed, so the unknown one is named
    assert error_field(first_error({"user_id": "u", "items": [], "x-ok": 1, "bad": 2}), "body") == "bad"
    assert error_field(first_error([]), "body") == "body"
    assert error_field(first_error([]), "arguments") == "arguments"
