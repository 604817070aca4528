import { SharedCtxError } from "../errors.js";

/** `startServer` could not bind because another process is listening on the port. */
export class PortInUseError extends SharedCtxError {
  override readonly name: string = "PortInUseError";
  readonly port: number;
  readonly host: string;

  constructor(port: number, host: string, options?: { cause?: unknown }) {
    super(
      `Port ${port} on ${host} is already in use (another \`shared-ctx serve\`?). ` +
        `Stop that process, or pick another port: --port ${port + 1}, or --port 0 for any free port.`,
      options,
    );
    this.port = port;
    this.host = host;
  }
}
