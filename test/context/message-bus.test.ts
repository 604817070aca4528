import { describe, expect, it } from "vitest";
import { type BusMessage, MessageBus } from "../../src/context/message-bus.js";

describe("MessageBus", () => {
  it("delivers each message to its recipient's inbox only, in order", () => {
    const bus = new MessageBus();
    const heard: BusMessage[] = [];
    const stop = bus.onMessage((message) => heard.push(message));
    bus.send({
      from: "planner",
      to: "reviewer",
      topic: "decision",
      content: "Deprecate x",
      data: { target: "x" },
    });
    bus.send({ from: "coder", to: "reviewer", topic: "result", content: "Built y" });
    stop();
    bus.send({ from: "lead", to: "coder", topic: "assignment", content: "Build y" });
    expect(bus.inbox("reviewer").map((message) => message.content)).toEqual([
      "Deprecate x",
      "Built y",
    ]);
    expect(bus.inbox("coder").map((message) => message.sequence)).toEqual([3]);
    expect(bus.inbox("planner")).toEqual([]);
    expect(heard).toHaveLength(2);
    expect(bus.all()[1]?.data).toEqual({});
  });
});
