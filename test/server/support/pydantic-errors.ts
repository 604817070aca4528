/**
 * The details Statewave v0.7.1 (FastAPI over pydantic v2) puts in a 422, one builder per error type,
 * so a test names the failure and the field and the wording stays pydantic's, written once.
 */

/** Where a detail points: `["body", "subject_id"]`, `["query", "limit"]`, `["body", "episodes", 2]`. */
type Location = ReadonlyArray<string | number>;

/** pydantic's `missing`: the field is absent; `input` is the object it is missing from. */
export const missing = (loc: Location, input: unknown) => ({
  type: "missing",
  loc,
  msg: "Field required",
  input,
});

/** pydantic's `string_type`: the value is not a string. */
export const notString = (loc: Location, input: unknown) => ({
  type: "string_type",
  loc,
  msg: "Input should be a valid string",
  input,
});

/** pydantic's `string_too_short` with its `min_length`. */
export const stringTooShort = (loc: Location, input: string, minLength: number) => ({
  type: "string_too_short",
  loc,
  msg: `String should have at least ${minLength} character${minLength === 1 ? "" : "s"}`,
  input,
  ctx: { min_length: minLength },
});

/** pydantic's `string_too_long` with its `max_length`. */
export const stringTooLong = (loc: Location, input: string, maxLength: number) => ({
  type: "string_too_long",
  loc,
  msg: `String should have at most ${maxLength} characters`,
  input,
  ctx: { max_length: maxLength },
});

/** pydantic's `dict_type`: a field typed as a dictionary got something else. */
export const notDictionary = (loc: Location, input: unknown) => ({
  type: "dict_type",
  loc,
  msg: "Input should be a valid dictionary",
  input,
});

/** pydantic's `model_attributes_type`: a model (a body, a batch item) got something not an object. */
export const notAnObject = (loc: Location, input: unknown) => ({
  type: "model_attributes_type",
  loc,
  msg: "Input should be a valid dictionary or object to extract fields from",
  input,
});
