import type { IncomingHttpHeaders } from "node:http";
import { request as httpRequest } from "node:http";

/** A POST the server has taken but whose body is not sent yet: it is in flight. */
export interface InFlightRequest {
  /** Sends the body, letting the server answer. */
  finish(): void;
  /** The server's answer, read to its end. */
  readonly answered: Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>;
}

/**
 * POSTs `body` (JSON) to `url` with `Expect: 100-continue` and resolves once the server has
 * answered 100 Continue, i.e. taken the request: a close from then on finds it in flight.
 */
export async function inFlightPost(url: string, body: unknown): Promise<InFlightRequest> {
  const text = JSON.stringify(body);
  const request = httpRequest(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "Content-Length": Buffer.byteLength(text),
      Expect: "100-continue",
    },
  });
  const answered = new Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>(
    (resolve, reject) => {
      request.once("response", (incoming) => {
        let received = "";
        incoming.on("data", (chunk: Buffer) => {
          received += chunk.toString();
        });
        incoming.once("end", () =>
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text: received }),
        );
      });
      request.once("error", reject);
    },
  );
  await new Promise<void>((resolve) => request.once("continue", () => resolve()));
  return { finish: () => request.end(text), answered };
}
