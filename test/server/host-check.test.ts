import { describe, expect, it } from "vitest";
import { createHostCheck, isLoopbackHost, parseHostHeader } from "../../src/server/host-check.js";

describe("isLoopbackHost", () => {
  it.each([
    ["localhost", true],
    ["LOCALHOST", true],
    ["::1", true],
    ["[::1]", true],
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["127.0.0.1.evil", false],
    ["x127.0.0.1", false],
    ["0.0.0.0", false],
    ["192.168.1.5", false],
    ["::", false],
  ])("%s -> %s", (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe("parseHostHeader", () => {
  it.each([
    [" Example.COM:80 ", { name: "example.com", port: 80 }],
    ["[::1]", { name: "::1", port: undefined }],
    ["[::FFFF:127.0.0.1]:8", { name: "::ffff:127.0.0.1", port: 8 }],
    ["host:65535", { name: "host", port: 65535 }],
    ["host:0", { name: "host", port: 0 }],
    ["host.:1", { name: "host", port: 1 }],
  ])("reads %j", (header, parsed) => {
    expect(parseHostHeader(header)).toEqual(parsed);
  });

  it.each([
    "host:65536",
    ":80",
    ".",
    ".:80",
    "[::1",
    "::1]",
    "host:",
    "host:123456",
    "a b:x",
    "[evil.com]",
  ])("refuses %j", (header) => {
    expect(parseHostHeader(header)).toBeNull();
  });
});

describe("createHostCheck", () => {
  it("takes a Host without a port as port 80", () => {
    const check = createHostCheck({ listenHost: "127.0.0.1", port: 80 });
    expect(check?.("localhost")).toBe(true);
    expect(check?.("localhost:80")).toBe(true);
    expect(check?.("localhost:8080")).toBe(false);
  });

  it("accepts the bound address itself, bracketed or not", () => {
    const check = createHostCheck({ listenHost: "[::1]", port: 9000 });
    expect(check?.("[::1]:9000")).toBe(true);
    const lan = createHostCheck({ listenHost: "192.168.1.5", port: 9000, allowedHosts: ["proxy"] });
    expect(lan?.("192.168.1.5:9000")).toBe(true);
    expect(lan?.("192.168.1.5:9001")).toBe(false);
    expect(lan?.("proxy:1")).toBe(true);
    expect(lan?.("other:9000")).toBe(false);
  });

  it("adds an allowed name to a port already allowed for it, and ignores unparsable entries", () => {
    const check = createHostCheck({
      listenHost: "127.0.0.1",
      port: 8100,
      allowedHosts: ["localhost:9000", "Devbox.", "a:b:c", "x:99999"],
    });
    expect(check?.("localhost:8100")).toBe(true);
    expect(check?.("localhost:9000")).toBe(true);
    expect(check?.("localhost:9001")).toBe(false);
    expect(check?.("devbox:5")).toBe(true);
    expect(check?.("a:b:c")).toBe(false);
    expect(check?.("x")).toBe(false);
    expect(check?.("garbage host")).toBe(false);
  });

  it("is off for * even beside other names", () => {
    expect(
      createHostCheck({ listenHost: "127.0.0.1", port: 1, allowedHosts: ["a", "*"] }),
    ).toBeUndefined();
  });
});
