import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { decisionsFromText } from "../../../src/agents/decompose-task.js";
import { buildTaskTeam } from "../../../src/scenario/from-task/build-task-team.js";
import { teamScenarioFromTask } from "../../../src/scenario/from-task/describe-team.js";
import { teamToYaml } from "../../../src/scenario/from-task/scenario-yaml.js";
import {
  sameWork,
  whatModesFace,
  workDone,
} from "../../../src/scenario/from-task/what-modes-face.js";
import { loadScenario } from "../../../src/scenario/load-scenario.js";
import { runModes } from "../../../src/scenario/scenario-events.js";
import { embeddedStoresPerTest } from "../../support/embedded-stores.js";
import { useTempDir as tempDirPerTest } from "../../support/temp-dir.js";
import { runToEnd } from "../support/run-scenario.js";

const memoryStore = embeddedStoresPerTest();
const tempDir = tempDirPerTest();

function withoutMemoryIds(events: readonly object[]): object[] {
  return events.map((event) =>
    "memoryIds" in event ? { ...event, memoryIds: (event.memoryIds as unknown[]).length } : event,
  );
}

/** Per Coder, its modules; per Planner, what it decides. */
function shape(task: string) {
  const team = buildTaskTeam(task);
  return {
    planners: team.members
      .filter((member) => member.role === "planner")
      .map((member) => member.decisions.map((d) => `${d.value} ${d.target}`).join(", ")),
    coders: team.members
      .filter((member) => member.role === "coder")
      .map((member) => member.pieces.map((piece) => piece.module).join(" ")),
  };
}

describe("buildTaskTeam", () => {
  describe("the team's shape", () => {
    it.each([
      [
        "Replace the legacy password-reset module with magic links",
        ["deprecate legacy-password-reset"],
        ["magic-links", "legacy-password-reset"],
      ],
      [
        "Add rate limiting and caching to the API gateway and remove the old throttle middleware",
        ["deprecate throttle-middleware"],
        ["rate-limiting api-gateway", "caching api-gateway", "throttle-middleware"],
      ],
      [
        "Deprecate legacy-auth, but the admin panel still needs it — keep it for now",
        ["keep legacy-auth"],
        ["legacy-auth"],
      ],
      ["Build a dark mode toggle", [""], ["dark-mode-toggle"]],
      // One Planner weighs both clauses about one module: the later is the exception.
      [
        "Retire legacy-cache. Keep legacy-cache until March.",
        ["keep legacy-cache"],
        ["legacy-cache"],
      ],
      ["Retire legacy-cache. Keep it until March.", ["keep legacy-cache"], ["legacy-cache"]],
      [
        "Retire the fax gateway. Keep the SOAP client. Build an email gateway.",
        ["deprecate fax-gateway", "keep soap-client"],
        ["email-gateway", "fax-gateway", "soap-client"],
      ],
      [
        "Split the user service into auth and profile services",
        ["deprecate user-service"],
        ["auth-service", "profile-service", "user-service"],
      ],
      [
        "Refactor billing, add invoices, receipts and refunds, and build a tax report",
        [""],
        ["billing tax-report", "invoices", "receipts", "refunds"],
      ],
    ])("%s", (task, planners, coders) => {
      expect(shape(task)).toEqual({ planners, coders });
    });
  });

  it("gives each Planner the clauses that decide, and a Planner reads the same decisions from its slice alone", () => {
    const team = buildTaskTeam(
      "Build the new invoice service (and retire legacy-invoices). Keep the PDF renderer.",
    );
    const planners = team.members.filter((member) => member.role === "planner");
    expect(planners.map((planner) => planner.clauses)).toEqual([
      ["Build the new invoice service (and retire legacy-invoices)"],
      ["Keep the PDF renderer"],
    ]);
    for (const planner of planners) {
      expect(decisionsFromText(planner.slice)).toEqual(planner.decisions);
    }
  });

  it("writes down no decision for a Planner and nothing in a brief because it was decided", () => {
    const briefs = (task: string) => {
      const { scenario } = buildTaskTeam(task);
      for (const agent of scenario.agents) expect(agent).not.toHaveProperty("decisions");
      return scenario.agents
        .filter((agent) => agent.role === "coder")
        .map((agent) => [agent.slice, agent.modules]);
    };
    // The Coders get the same briefs whatever the Planners will decide.
    expect(briefs("Retire legacy-cache. Build redis-cache.")).toEqual(
      briefs("Keep legacy-cache. Build redis-cache."),
    );
    expect(
      briefs("Deprecate legacy-auth, but the admin panel still needs it — keep it for now"),
    ).toEqual(briefs("Deprecate legacy-auth"));
  });

  it("says where each piece of each slice came from", () => {
    const team = buildTaskTeam(
      "Add rate limiting to the API gateway and remove the old throttle middleware",
    );
    const pieces = team.members.flatMap((member) => member.pieces);
    expect(pieces.map((piece) => [piece.module, piece.kind, piece.from])).toEqual([
      ["rate-limiting", "new", "the task asks for it: 'Add rate limiting to the API gateway'"],
      [
        "api-gateway",
        "existing",
        "an existing module the task's work touches: 'Add rate limiting to the API gateway'",
      ],
      [
        "throttle-middleware",
        "existing",
        "an existing module the task names, in use until the team decides: 'remove the old throttle middleware'",
      ],
    ]);
  });

  it("carries what was understood, including what was not", () => {
    expect(buildTaskTeam("Build a search page. Tell the marketing team.").understood).toEqual({
      decisions: [],
      work: [{ module: "search-page", kind: "new", clause: "Build a search page" }],
      unparsed: ["Tell the marketing team"],
    });
    expect(buildTaskTeam("Hello there").hasWork).toBe(false);
  });
});

describe("whatModesFace", () => {
  it("names each place the modes can differ by its mechanism", () => {
    const { scenario } = teamScenarioFromTask(
      "Add rate limiting and caching to the API gateway and remove the old throttle middleware",
    );
    const faces = whatModesFace(scenario);
    expect(faces.nothing).toBe(false);
    expect(faces.faces.map((face) => [face.module, face.kind])).toEqual([
      ["throttle-middleware", "decided"],
      ["api-gateway", "shared"],
    ]);
    expect(faces.faces[0]?.text).toContain("mid-build invalidation");
    expect(faces.faces[1]?.text).toContain("atomic claim");
  });

  it.each([
    ["Build a dark mode toggle", "nothing is decided, and no two slices share a module"],
    [
      "Keep the legacy billing-cron job running",
      "every decision keeps what the Coders work on, and no two slices share a module",
    ],
  ])("says plainly when there is nothing to coordinate: %s", (task, why) => {
    const faces = whatModesFace(teamScenarioFromTask(task).scenario);
    expect(faces).toMatchObject({ nothing: true, why });
  });

  it("reads shipped scenarios too: late-decision's Coder meets the Planner's decision", async () => {
    const faces = whatModesFace(await loadScenario("late-decision"));
    expect(faces.faces.map((face) => [face.module, face.kind])).toEqual([
      ["legacy-cache", "decided"],
    ]);
  });
});

describe("a task's team, run", () => {
  it("differs between the modes where the slices meet a decision or each other", async () => {
    const { scenario } = teamScenarioFromTask(
      "Add rate limiting and caching to the API gateway and remove the old throttle middleware",
    );
    const naive = await runToEnd(scenario, "naive", { store: memoryStore() });
    const statewave = await runToEnd(scenario, "statewave", { store: memoryStore() });
    expect(naive.summary.collision).toBe(true);
    expect(naive.summary.wastedModules).toEqual(["api-gateway", "throttle-middleware"]);
    expect(statewave.summary.collision).toBe(false);
    expect(statewave.summary.conflictsAvoided).toBeGreaterThanOrEqual(2);
    expect(sameWork(naive.events, statewave.events)).toBe(false);
  });

  it.each([
    "Build a dark mode toggle",
    "Keep the legacy billing-cron job running",
    "Fix the flaky login tests and add a status page",
  ])("does the same work in every mode when nothing meets: %s", async (task) => {
    const { scenario } = teamScenarioFromTask(task);
    expect(whatModesFace(scenario).nothing).toBe(true);
    const runs = [];
    for (const mode of runModes)
      runs.push(await runToEnd(scenario, mode, { store: memoryStore() }));
    const [first, ...others] = runs;
    for (const other of others) {
      expect(workDone(other.events)).toEqual(workDone(first?.events ?? []));
      expect(other.summary.collision).toBe(false);
    }
  });
});

/** Ten tasks a new user might try first (issue 25's "tried as a new user would"). */
const newUserTasks = [
  "Replace the legacy password-reset module with magic links",
  "Add rate limiting to the API gateway and remove the old throttle middleware",
  "Fix the flaky login tests",
  "Migrate the user table from MySQL to Postgres",
  "Deprecate legacy-auth, but the admin panel still needs it — keep it for now",
  "Split the user service into auth and profile services",
  "Add dark mode and a language picker to the settings page",
  "Build an audit log for admin actions",
  "Stop using moment.js and switch the date pickers to date-fns",
  "Make search faster and add search suggestions to the search page",
];

describe("ten tasks, as a new user would try them", () => {
  it.each(newUserTasks)(
    "either differ by a named mechanism or say there is nothing to coordinate: %s",
    async (task) => {
      const { scenario } = teamScenarioFromTask(task);
      const faces = whatModesFace(scenario);
      const naive = await runToEnd(scenario, "naive", { store: memoryStore(), seed: 7 });
      const statewave = await runToEnd(scenario, "statewave", { store: memoryStore(), seed: 7 });
      // What the check predicts is what the runs do.
      expect(sameWork(naive.events, statewave.events)).toBe(faces.nothing);
      if (faces.nothing) {
        expect(faces.why).toBeDefined();
        expect(naive.summary.collision).toBe(false);
      } else {
        expect(naive.summary.collision).toBe(true);
        expect(statewave.summary.collision).toBe(false);
        expect(Object.keys(statewave.summary.avoidedBy).length).toBeGreaterThan(0);
      }
    },
  );
});

describe("scenario init's file", () => {
  const tasks = [
    "Replace the legacy password-reset module with magic links",
    "Add rate limiting and caching to the API gateway and remove the old throttle middleware",
    'Deprecate "legacy-auth", but the admin panel still needs it — keep it for now: #1 priority',
  ];

  it.each(tasks)("is the very scenario run --task plays: %s", async (task) => {
    const path = join(tempDir(), "task.yaml");
    writeFileSync(path, teamToYaml(buildTaskTeam(task)));
    expect(await loadScenario(path)).toEqual(teamScenarioFromTask(task).scenario);
  });

  it("run unchanged with --scenario, gives the same events as run --task for the same seed", async () => {
    const task = tasks[1] ?? "";
    const path = join(tempDir(), "task.yaml");
    writeFileSync(path, teamToYaml(buildTaskTeam(task)));
    for (const mode of runModes) {
      for (const seed of [1, 7]) {
        const fromTask = await runToEnd(teamScenarioFromTask(task).scenario, mode, {
          store: memoryStore(),
          seed,
        });
        const fromFile = await runToEnd(await loadScenario(path), mode, {
          store: memoryStore(),
          seed,
        });
        // Memory ids are the store's own (random UUIDs): the same reads, not the same ids.
        expect(withoutMemoryIds(fromFile.events)).toEqual(withoutMemoryIds(fromTask.events));
      }
    }
  });

  it("says what each field does and where each piece came from, in comments", () => {
    const yaml = teamToYaml(
      buildTaskTeam("Replace the legacy password-reset module with magic links"),
    );
    expect(yaml).toContain("# the project's existing modules");
    expect(yaml).toContain("how long it deliberates");
    expect(yaml).toContain(
      "#   legacy-password-reset (existing): an existing module the task names, in use until the team decides",
    );
    expect(yaml).toContain("#   decides: deprecate legacy-password-reset");
    // Comments are comments: the data is only the scenario.
    expect(Object.keys(parseYaml(yaml) as object)).toEqual([
      "name",
      "title",
      "task",
      "agents",
      "inventory",
      "timings",
      "costs",
    ]);
  });
});
