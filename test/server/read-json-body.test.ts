import { describe, expect, it } from "vitest";
import { HttpError } from "../../src/server/http-error.js";
import { maxJsonDepth, readJsonBody } from "../../src/server/read-json-body.js";

const url = "http://test/v1/episodes";

function jsonRequest(body: string | Uint8Array, headers: Record<string, string> = {}) {
  return new Request(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body,
  });
}

/** A body without a Content-Length, arriving in these chunks. */
function streamed(chunks: string[], onCancel: () => void = () => undefined): Request {
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next];
      next += 1;
      if (chunk === undefined) controller.close();
      else controller.enqueue(encoder.encode(chunk));
    },
    cancel: onCancel,
  });
  return new Request(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body,
    duplex: "half",
  } as RequestInit);
}

/** The HttpError `readJsonBody` throws, as status, code, message and details. */
async function failure(request: Request, maxBytes?: number) {
  const error = await readJsonBody(request, maxBytes).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof HttpError)) throw new Error(`expected an HttpError, got ${String(error)}`);
  return {
    status: error.status,
    code: error.code,
    message: error.message,
    details: error.details,
    cause: error.cause,
  };
}

const invalid = (details: unknown[]) => ({
  status: 422,
  code: "validation_error",
  message: "Request validation failed",
  details,
  cause: undefined,
});

describe("readJsonBody", () => {
  describe("Content-Type", () => {
    it.each([
      "application/json",
      "Application/JSON ; charset=utf-8",
      "application/vnd.api+json",
      "application/merge-patch+json; charset=utf-8",
    ])("reads %s", async (type) => {
      await expect(readJsonBody(jsonRequest('{"a":1}', { "Content-Type": type }))).resolves.toEqual(
        {
          a: 1,
        },
      );
    });

    it.each([
      ["text/plain", "text/plain"],
      ["application/jsonx", "application/jsonx"],
      ["application/+json", "application/+json"],
      ["application/x+jsonp", "application/x+jsonp"],
      ["xapplication/x+json", "xapplication/x+json"],
      ["text/json", "text/json"],
    ])("refuses %s with a 415 naming it", async (type, named) => {
      expect(await failure(jsonRequest("{}", { "Content-Type": type }))).toEqual({
        status: 415,
        code: "unsupported_media_type",
        message: `Send the body as JSON with Content-Type: application/json (got ${named})`,
        details: undefined,
        cause: undefined,
      });
    });

    it("says when there is no Content-Type, and cuts a long one to 200 characters", async () => {
      const none = new Request(url, { method: "POST", body: new Uint8Array([123, 125]) });
      expect((await failure(none)).message).toBe(
        "Send the body as JSON with Content-Type: application/json (got no Content-Type)",
      );
      const long = `text/${"x".repeat(300)}`;
      expect((await failure(jsonRequest("{}", { "Content-Type": long }))).message).toBe(
        `Send the body as JSON with Content-Type: application/json (got ${long.slice(0, 200)})`,
      );
    });
  });

  describe("size", () => {
    const tooLarge = {
      status: 413,
      code: "payload_too_large",
      message: "Request body is larger than 10 bytes",
      details: undefined,
      cause: undefined,
    };

    it("refuses a declared Content-Length over the limit before reading", async () => {
      expect(await failure(jsonRequest('{"a":"xx"}', { "Content-Length": "11" }), 10)).toEqual(
        tooLarge,
      );
    });

    it("reads a declared body of exactly the limit", async () => {
      await expect(
        readJsonBody(jsonRequest('{"a":"xx"}', { "Content-Length": "10" }), 10),
      ).resolves.toEqual({ a: "xx" });
    });

    it("counts a streamed body and stops one byte past the limit, cancelling the stream", async () => {
      let cancelled = false;
      const request = streamed(['{"a":', '"xxx"}'], () => {
        cancelled = true;
      });
      expect(await failure(request, 10)).toEqual(tooLarge);
      expect(cancelled).toBe(true);
    });

    it("joins a streamed body of exactly the limit from its chunks, in order", async () => {
      await expect(readJsonBody(streamed(['{"a"', ":", '"xx"}']), 10)).resolves.toEqual({
        a: "xx",
      });
    });

    it("reads a stream when the Content-Length is not a number", async () => {
      await expect(
        readJsonBody(jsonRequest('{"a":1}', { "Content-Length": "soon" }), 100),
      ).resolves.toEqual({ a: 1 });
    });

    it("calls a stream that fails mid-body a client disconnect (499), keeping the cause", async () => {
      const reset = new Error("socket hang up");
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.error(reset);
        },
      });
      const request = new Request(url, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
        duplex: "half",
      } as RequestInit);
      expect(await failure(request)).toEqual({
        status: 499,
        code: "client_closed_request",
        message: "The client closed the connection before the request body arrived",
        details: undefined,
        cause: reset,
      });
    });
  });

  describe("decoding", () => {
    const missing = invalid([
      { type: "missing", loc: ["body"], msg: "Field required", input: null },
    ]);

    it.each([
      [
        "no body at all",
        new Request(url, { method: "POST", headers: { "Content-Type": "application/json" } }),
      ],
      ["an empty body", jsonRequest("")],
      ["a blank body", jsonRequest(" \n\t")],
      ["JSON null", jsonRequest("null")],
    ])("answers %s as a missing body", async (_name, request) => {
      expect(await failure(request)).toEqual(missing);
    });

    it("refuses bytes that are not UTF-8", async () => {
      expect(await failure(jsonRequest(new Uint8Array([0x7b, 0xff, 0x7d])))).toEqual(
        invalid([
          {
            type: "json_invalid",
            loc: ["body", 0],
            msg: "JSON decode error",
            input: {},
            ctx: { error: "Invalid UTF-8" },
          },
        ]),
      );
    });

    it.each([
      ['{"a" 1}', 5],
      ['{"abcdefghijk" 1}', 15],
      ['{"a":1}}', 7],
      ['{"a": ', 6],
      ["x", 0],
    ])("locates the JSON error in %j at %d, with the parser's reason", async (text, position) => {
      let reason = "";
      try {
        JSON.parse(text);
      } catch (error) {
        reason = (error as Error).message;
      }
      expect(await failure(jsonRequest(text))).toEqual(
        invalid([
          {
            type: "json_invalid",
            loc: ["body", position],
            msg: "JSON decode error",
            input: {},
            ctx: { error: reason },
          },
        ]),
      );
    });

    it.each([
      ["[1]", [1]],
      ['"text"', "text"],
      ["5", 5],
      ["false", false],
    ])("refuses the non-object %s", async (text, input) => {
      expect(await failure(jsonRequest(text))).toEqual(
        invalid([
          {
            type: "model_attributes_type",
            loc: ["body"],
            msg: "Input should be a valid dictionary or object to extract fields from",
            input,
          },
        ]),
      );
    });
  });

  describe("depth", () => {
    const nested = (depth: number, open: string, close: string, inner = "1") =>
      `${open.repeat(depth - 1)}${inner}${close.repeat(depth - 1)}`;

    it(`accepts ${maxJsonDepth} levels and refuses one more, in objects and arrays`, async () => {
      const objects = (depth: number) => nested(depth, '{"a":', "}", "{}");
      await expect(readJsonBody(jsonRequest(objects(maxJsonDepth)))).resolves.toBeTypeOf("object");
      const tooDeep = invalid([
        {
          type: "json_invalid",
          loc: ["body"],
          msg: `JSON nested deeper than ${maxJsonDepth} levels`,
          input: {},
          ctx: { error: "Nesting too deep" },
        },
      ]);
      expect(await failure(jsonRequest(objects(maxJsonDepth + 1)))).toEqual(tooDeep);
      const arrays = (depth: number) => `{"a":${nested(depth - 1, "[", "]", "[]")}}`;
      await expect(readJsonBody(jsonRequest(arrays(maxJsonDepth)))).resolves.toBeTypeOf("object");
      expect(await failure(jsonRequest(arrays(maxJsonDepth + 1)))).toEqual(tooDeep);
    });

    it("checks the depth before the shape: a too-deep array is a nesting error", async () => {
      const text = nested(maxJsonDepth + 1, "[", "]", "[]");
      expect(((await failure(jsonRequest(text))).details as { type: string }[])[0]?.type).toBe(
        "json_invalid",
      );
    });
  });

  describe("numbers", () => {
    const notExact = (literal: string, loc: Array<string | number>, problem: string) =>
      invalid([
        {
          type: "number_not_exact",
          loc: ["body", ...loc],
          msg: `Number ${literal} cannot be stored exactly: ${problem}`,
          input: literal,
        },
      ]);

    it.each([
      [
        '{"p":{"list":[1,1e400]}}',
        "1e400",
        ["p", "list", 1],
        "it is outside the range of a 64-bit float and would be stored as null",
      ],
      ['{"n":-0}', "-0", ["n"], "-0 would be stored as 0"],
      [
        '{"a":[{"b":1e-400}]}',
        "1e-400",
        ["a", 0, "b"],
        "it is too small for a 64-bit float and would be stored as 0",
      ],
      [
        '{"id":9007199254740993}',
        "9007199254740993",
        ["id"],
        "it is an integer beyond what a 64-bit float holds exactly (2^53); send it as a string",
      ],
    ])("refuses %s, locating the number", async (text, literal, loc, problem) => {
      expect(await failure(jsonRequest(text))).toEqual(notExact(literal, loc, problem));
    });

    it("refuses an exact integer from 1e21 on, which JSON would write as 1e+21", async () => {
      const literal = "1000000000000000000000";
      expect(await failure(jsonRequest(`{"n":${literal}}`))).toEqual(
        notExact(
          literal,
          ["n"],
          "it is an integer beyond what a 64-bit float holds exactly (2^53); send it as a string",
        ),
      );
    });

    it("names the first of equal numbers, and reads a fraction with several digits whole", async () => {
      expect(await failure(jsonRequest('{"a":-0,"b":-0}'))).toEqual(
        notExact("-0", ["a"], "-0 would be stored as 0"),
      );
      expect(await failure(jsonRequest('{"n":1.25e400}'))).toEqual(
        notExact(
          "1.25e400",
          ["n"],
          "it is outside the range of a 64-bit float and would be stored as null",
        ),
      );
    });

    it("shows a literal of 40 characters whole", async () => {
      const literal = `1${"0".repeat(39)}`;
      const answer = await failure(jsonRequest(`{"big":${literal}}`));
      expect((answer.details as Array<{ msg: string }>)[0]?.msg).toBe(
        `Number ${literal} cannot be stored exactly: it is an integer beyond what a 64-bit float holds exactly (2^53); send it as a string`,
      );
    });

    it("cuts a literal over 40 characters in the message", async () => {
      const literal = `1${"0".repeat(45)}`;
      const answer = await failure(jsonRequest(`{"big":${literal}}`));
      expect(answer.details).toEqual([
        {
          type: "number_not_exact",
          loc: ["body", "big"],
          msg: `Number ${literal.slice(0, 40)}… cannot be stored exactly: it is an integer beyond what a 64-bit float holds exactly (2^53); send it as a string`,
          input: literal,
        },
      ]);
    });

    it("accepts zeros, 2^53 and number-like strings", async () => {
      const text =
        '{"z":0,"f":0.0,"e":0e5,"max":9007199254740992,"s":"1e400","q":"a\\"-0","neg":-1.5,"pow":1152921504606846976}';
      await expect(readJsonBody(jsonRequest(text))).resolves.toEqual(JSON.parse(text));
    });

    it("locates only the first 20 suspicious numbers; later ones are named at the body", async () => {
      const zeros = Array.from({ length: 20 }, () => "0").join(",");
      const answer = await failure(jsonRequest(`{"list":[${zeros},-0]}`));
      expect(answer.details).toEqual([
        {
          type: "number_not_exact",
          loc: ["body"],
          msg: "Number -0 cannot be stored exactly: -0 would be stored as 0",
          input: "-0",
        },
      ]);
      // Ordinary numbers take no place among the 20.
      const ordinary = Array.from({ length: 25 }, (_, index) => String(index + 1)).join(",");
      expect((await failure(jsonRequest(`{"list":[${ordinary},1.5,-0]}`))).details).toMatchObject([
        { loc: ["body", "list", 26] },
      ]);
      const fewer = Array.from({ length: 19 }, () => "0").join(",");
      expect((await failure(jsonRequest(`{"list":[${fewer},-0]}`))).details).toMatchObject([
        { loc: ["body", "list", 19] },
      ]);
    });
  });
});
