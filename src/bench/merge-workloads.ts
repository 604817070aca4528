import type { NamespaceSchema } from "../crdt/field-kind.js";

// The merge benchmark's scripted workloads: who writes what, in which order.

/** One scripted write of one agent. */
export interface Write {
  agent: string;
  namespace: string;
  key: string;
  /** set: one element; text: one line; counter: 1; register/map: the value. */
  value: unknown;
  kind: "set" | "text" | "counter" | "register" | "map";
}

/** A scripted workload: its agents' writes and the schema their replicas use. */
export interface Workload {
  name: string;
  agents: string[];
  /** Per agent, in the order it writes them. Agents write concurrently (round-robin). */
  scripts: Write[][];
  schema: Record<string, NamespaceSchema>;
}

/** Writes that merge without a conflict: set tags, text notes, counters, distinct map leaves. */
export function cleanMerge(): Workload {
  const script = (agent: string, tag: string, leaf: string, value: unknown): Write[] => [
    { agent, namespace: "plan", key: "tags", value: tag, kind: "set" },
    { agent, namespace: "plan", key: "notes", value: `${agent}: ${tag} done`, kind: "text" },
    { agent, namespace: "plan", key: "config", value: { db: { [leaf]: value } }, kind: "map" },
    { agent, namespace: "plan", key: "reviews", value: 1, kind: "counter" },
  ];
  return {
    name: "clean_merge",
    agents: ["architect", "coder"],
    scripts: [
      script("architect", "auth", "host", "db.local"),
      script("coder", "api", "port", 5432),
    ],
    schema: { plan: { reviews: "counter" } },
  };
}

/** Two agents set one register to different values: a real conflict. */
export function semanticConflict(): Workload {
  return {
    name: "semantic_conflict",
    agents: ["architect", "security"],
    scripts: [
      [{ agent: "architect", namespace: "plan", key: "token", value: "RS256", kind: "register" }],
      [{ agent: "security", namespace: "plan", key: "token", value: "HS256", kind: "register" }],
    ],
    schema: {},
  };
}

/** Two agents write one field as different kinds. */
export function typeMismatch(): Workload {
  return {
    name: "type_mismatch",
    agents: ["planner", "coder"],
    scripts: [
      [
        {
          agent: "planner",
          namespace: "plan",
          key: "owner",
          value: ["alice", "carol"],
          kind: "set",
        },
      ],
      [{ agent: "coder", namespace: "plan", key: "owner", value: "bob", kind: "register" }],
    ],
    schema: {},
  };
}

/** `count` agents writing `writes` each, mostly mergeable, as the scaling workload. */
export function manyAgents(count: number, writes: number): Workload {
  const agents = Array.from({ length: count }, (_, index) => `agent-${index}`);
  const scripts = agents.map((agent) =>
    Array.from({ length: writes }, (_, index): Write => {
      switch (index % 5) {
        case 0:
          return { agent, namespace: "work", key: "tags", value: `${agent}-${index}`, kind: "set" };
        case 1:
          return {
            agent,
            namespace: "work",
            key: "notes",
            value: `${agent} step ${index}`,
            kind: "text",
          };
        case 2:
          return { agent, namespace: "work", key: "hits", value: 1, kind: "counter" };
        case 3:
          return {
            agent,
            namespace: "work",
            key: `status_${agent}`,
            value: `step ${index}`,
            kind: "register",
          };
        default:
          return {
            agent,
            namespace: "work",
            key: "progress",
            value: { [agent]: index },
            kind: "map",
          };
      }
    }),
  );
  return {
    name: `many_agents(${count}x${writes})`,
    agents,
    scripts,
    schema: { work: { hits: "counter" } },
  };
}

/** Round-robin interleaving: the order writes happen in when agents run side by side. */
/** The writes in the order the agents make them concurrently (round-robin). */
export function interleave(workload: Workload): Write[] {
  const order: Write[] = [];
  const longest = Math.max(...workload.scripts.map((script) => script.length));
  for (let index = 0; index < longest; index++) {
    for (const script of workload.scripts) {
      const write = script[index];
      if (write) order.push(write);
    }
  }
  return order;
}

/** The key a write lands on in the baselines' stores. */
export const slot = (write: Write) => `${write.namespace}/${write.key}`;
