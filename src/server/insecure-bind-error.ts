import { SharedCtxError } from "../errors.js";

/**
 * `startServer` was asked to bind an interface other machines can reach without any API key:
 * anyone on the network could read and write every tenant. Refused unless `insecureNoAuth`.
 */
export class InsecureBindError extends SharedCtxError {
  override readonly name: string = "InsecureBindError";
  /** The interface asked for (`0.0.0.0`, a LAN address). */
  readonly host: string;

  constructor(host: string) {
    super(
      `refusing to serve ${host} without an API key, as anyone who can reach it could read and write every tenant (set SHARED_CTX_API_KEY or --tenant-keys, bind 127.0.0.1, or pass --insecure-no-auth to serve it open anyway)`,
    );
    this.host = host;
  }
}
