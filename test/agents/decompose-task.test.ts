import { describe, expect, it } from "vitest";
import {
  decisionFromSentence,
  decomposeTask,
  moduleFromSentence,
  planFromText,
  splitClauses,
} from "../../src/agents/decompose-task.js";
import { toModuleName } from "../../src/agents/task-words.js";
import { everydayPhrasings } from "../support/fixtures/task-phrasings.js";

/** More phrasings → the decisions and the Coder's plan, beside the everyday ones the brain shares. */
const phrasings: ReadonlyArray<[task: string, decisions: string[], plan: string[]]> = [
  ...everydayPhrasings,
  ["Migrate the user table to Postgres", ["deprecate user-table"], ["postgres-user-table"]],
  ["Retire the old search in favour of Elasticsearch.", ["deprecate search"], ["elasticsearch"]],
  [
    "Deprecate the session token in favour of JWT. Build the JWT issuer.",
    ["deprecate session-token"],
    ["jwt-issuer"],
  ],
  [
    "Please move the cache to Redis, then build a cache dashboard.",
    ["deprecate cache"],
    ["redis-cache", "cache-dashboard"],
  ],
  [
    "We need to drop support for IE11 and add support for webhooks.",
    ["deprecate ie11"],
    ["webhooks-support"],
  ],
  [
    "Build a payment service to replace legacy-stripe-v1",
    ["deprecate legacy-stripe-v1"],
    ["payment-service"],
  ],
  [
    "Replace Redis with Memcached and update the session store",
    ["deprecate redis"],
    ["memcached", "session-store"],
  ],
  [
    "We are moving search from Elasticsearch to OpenSearch; keep the query parser.",
    ["deprecate elasticsearch-search", "keep query-parser"],
    ["opensearch-search"],
  ],
  [
    "Keep using Postgres but drop the MongoDB cache",
    ["keep postgres", "deprecate mongodb-cache"],
    [],
  ],
  ["Write tests for the payment service", [], ["payment-service-tests"]],
  [
    "Please add rate limiting to the public API and write docs for it.",
    [],
    ["rate-limiting", "public-api", "rate-limiting-docs"],
  ],
  ["Fix the login bug", [], ["login"]],
  ["Move fast and break things", [], []],
];

/**
 * The phrasings issue 25 lists, and everyday neighbours: what a person would read from each —
 * decisions ("value target"), the work the task asks for ("(existing)" for a module the project
 * has), and the clauses nothing was read from.
 */
const readAsAPerson: ReadonlyArray<
  [task: string, decisions: string[], work: string[], unparsed: string[]]
> = [
  [
    "Deprecate legacy-auth, but the admin panel still needs it — keep it for now",
    ["keep legacy-auth"],
    [],
    [],
  ],
  ["Fix the flaky login tests", [], ["login (existing)"], []],
  [
    "Add rate limiting to the API gateway and remove the old throttle middleware",
    ["deprecate throttle-middleware"],
    ["rate-limiting", "api-gateway (existing)"],
    [],
  ],
  [
    "Add a checkout page, drop the old cart service and update the cart service tests",
    ["deprecate cart-service"],
    ["checkout-page", "cart-service (existing)"],
    [],
  ],
  ["Keep the legacy billing-cron job running", ["keep legacy-billing-cron"], [], []],
  [
    "Build the new invoice service (and retire legacy-invoices)",
    ["deprecate legacy-invoices"],
    ["invoice-service"],
    [],
  ],
  [
    "Split the user service into auth and profile services",
    ["deprecate user-service"],
    ["auth-service", "profile-service"],
    [],
  ],
  ["Make search faster", [], ["search (existing)"], []],
  ["Stop using moment.js", ["deprecate moment-js"], [], []],
  ["Get rid of the XML export", ["deprecate xml-export"], [], []],
  ["Sunset the v1 API in favour of the v2 API", ["deprecate v1-api"], ["v2-api"], []],
  [
    "Deprecate the SOAP client, the FTP uploader and the fax gateway",
    ["deprecate soap-client", "deprecate ftp-uploader", "deprecate fax-gateway"],
    [],
    [],
  ],
  [
    "Merge the guest cart into the cart service",
    ["deprecate guest-cart"],
    ["cart-service (existing)"],
    [],
  ],
  ["Retire legacy-cache because Redis is faster", ["deprecate legacy-cache"], [], []],
  ["Retire legacy-cache. Keep it until March.", ["keep legacy-cache"], [], []],
  ["Upgrade the React app to React 19", [], ["react-app (existing)"], []],
  [
    "Move the nightly reports from cron to the job queue",
    ["deprecate cron-nightly-reports"],
    ["job-queue-reports"],
    [],
  ],
  ["Add dark mode to the settings page", [], ["dark-mode", "settings-page (existing)"], []],
  ["Write integration tests for the checkout flow", [], ["checkout-flow-tests"], []],
  ["Improve the error messages of the CLI", [], ["cli (existing)"], []],
  [
    "Replace Jenkins with GitHub Actions, but keep Jenkins for the release job until Q3",
    ["keep jenkins"],
    ["github-actions"],
    [],
  ],
  ["We no longer need the Python 2 shims", ["deprecate python-2-shims"], [], []],
  [
    "Refactor the billing module and add invoices, receipts and refunds",
    [],
    ["billing (existing)", "invoices", "receipts", "refunds"],
    [],
  ],
  [
    "Consolidate the three logging libraries into one logger",
    ["deprecate logging-libraries"],
    ["logger"],
    [],
  ],
  ["Speed up the image resizer", [], ["image-resizer (existing)"], []],
  [
    "Don't touch the payments service; build a new fraud checker",
    ["keep payments-service"],
    ["fraud-checker"],
    [],
  ],
  [
    "Add pagination to the orders API and the users API",
    [],
    ["pagination", "orders-api (existing)", "users-api (existing)"],
    [],
  ],
  ["The old notification service must go", ["deprecate notification-service"], [], []],
  ["Build an audit log for admin actions", [], ["audit-log"], []],
  ["Set up monitoring for the payment service", [], ["payment-service-monitoring"], []],
  ["Document the public API", [], ["public-api (existing)"], []],
  ["Make the importer more reliable", [], ["importer (existing)"], []],
  ["Translate the onboarding emails into German", [], ["onboarding-emails (existing)"], []],
  [
    "Fix the memory leak in the websocket server and add a health check",
    [],
    ["websocket-server (existing)", "health-check"],
    [],
  ],
  ["Rename the user table", [], ["user-table (existing)"], []],
  ["Build a search page (the old grep tool can go)", ["deprecate grep-tool"], ["search-page"], []],
  ["Hello there", [], [], ["Hello there"]],
  ["Retire the v1 API (keep the v1 webhooks)", ["deprecate v1-api", "keep v1-webhooks"], [], []],
  [
    "Remove the old throttle middleware (the gateway team still uses it)",
    ["deprecate throttle-middleware"],
    [],
    [],
  ],
  [
    "Sunset the mobile v1 app - the v2 app replaces it",
    ["deprecate mobile-v1-app"],
    ["v2-app"],
    [],
  ],
  [
    "Leave the payments service as is and add Apple Pay to the checkout page",
    ["keep payments-service"],
    ["apple-pay", "checkout-page (existing)"],
    [],
  ],
  [
    "Get rid of the cron jobs, the FTP sync and the old mailer; build a job scheduler",
    ["deprecate cron-jobs", "deprecate ftp-sync", "deprecate mailer"],
    ["job-scheduler"],
    [],
  ],
  ["We're replacing Webpack with Vite", ["deprecate webpack"], ["vite"], []],
  [
    "Build a payment service that replaces legacy-stripe-v1",
    ["deprecate legacy-stripe-v1"],
    ["payment-service"],
    [],
  ],
  [
    "Build a search page. Tell the marketing team.",
    [],
    ["search-page"],
    ["Tell the marketing team"],
  ],
];

describe("decomposeTask, read as a person would", () => {
  it.each(readAsAPerson)("%s", (task, decisions, work, unparsed) => {
    const slices = decomposeTask(task);
    expect(slices.decisions.map((decision) => `${decision.value} ${decision.target}`)).toEqual(
      decisions,
    );
    expect(
      slices.plan.map((entry) =>
        entry.kind === "existing" ? `${entry.module} (existing)` : entry.module,
      ),
    ).toEqual(work);
    expect(slices.unparsed).toEqual(unparsed);
  });

  it.each(readAsAPerson.map(([task]) => task))("names modules with short nouns: %s", (task) => {
    const slices = decomposeTask(task);
    for (const name of [
      ...slices.decisions.map((decision) => decision.target),
      ...slices.plan.map((entry) => entry.module),
    ]) {
      expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+){0,2}$/);
    }
  });

  it("keeps a decision's exception and its reason in what the Planner publishes", () => {
    const [decision] = decomposeTask(
      "Deprecate legacy-auth, but the admin panel still needs it — keep it for now",
    ).decisions;
    expect(decision).toEqual({
      target: "legacy-auth",
      value: "keep",
      content: "Deprecate legacy-auth, but the admin panel still needs it — keep it for now.",
    });
  });

  it("gives the Planner a decision made in parentheses", () => {
    const slices = decomposeTask("Build the new invoice service (and retire legacy-invoices)");
    expect(slices.planner).toContain("retire legacy-invoices");
    expect(slices.decisions.map((decision) => decision.target)).toEqual(["legacy-invoices"]);
  });
});

describe("decomposeTask", () => {
  describe("everyday phrasings", () => {
    it.each(phrasings)("%s", (task, decisions, plan) => {
      const slices = decomposeTask(task);
      expect(slices.decisions.map((decision) => `${decision.value} ${decision.target}`)).toEqual(
        decisions,
      );
      expect(slices.plan.map((entry) => entry.module)).toEqual(plan);
    });
  });

  describe("module names", () => {
    it.each(phrasings.map(([task]) => task))(
      "are short kebab-case nouns, never a sentence: %s",
      (task) => {
        const slices = decomposeTask(task);
        const names = [
          ...slices.decisions.map((decision) => decision.target),
          ...slices.plan.map((entry) => entry.module),
        ];
        for (const name of names) {
          expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+){0,2}$/);
        }
      },
    );
  });

  describe("slices", () => {
    it("adds nothing to the Coder's brief because it was deprecated", () => {
      const slices = decomposeTask("Build a payment service. Deprecate legacy Stripe v1 module.");
      expect(slices.planner).toBe("Deprecate legacy Stripe v1 module.");
      expect(slices.coder).toBe("Build a payment service.");
      expect(slices.coder).not.toContain("legacy");
      expect(slices.inventory).toEqual(["legacy-stripe-v1"]);
    });

    it("gives each role its clauses, and a clause that does both to both", () => {
      expect(decomposeTask("Sunset the v1 API and build the v2 API")).toMatchObject({
        planner: "Sunset the v1 API.",
        coder: "Build the v2 API.",
      });
      expect(decomposeTask("Swap moment.js for date-fns")).toMatchObject({
        planner: "Swap moment.js for date-fns.",
        coder: "Swap moment.js for date-fns.",
      });
    });

    it("falls back to the whole task when no clause decides anything", () => {
      const slices = decomposeTask("Build a rate limiter.");
      expect(slices.planner).toContain("Decide the architecture for");
      expect(slices.coder).toBe("Build a rate limiter.");
      expect(slices.inventory).toEqual([]);
    });
  });

  describe("plan", () => {
    it("says where each module came from", () => {
      const slices = decomposeTask(
        "Build a payment service that writes to invoice-store. Keep invoice-store.",
      );
      expect(slices.plan).toEqual([
        {
          module: "payment-service",
          kind: "new",
          clause: "Build a payment service that writes to invoice-store",
          from: "the task: 'Build a payment service that writes to invoice-store'",
        },
        {
          module: "invoice-store",
          kind: "existing",
          clause: "Build a payment service that writes to invoice-store",
          from: "an existing module the task's work mentions: 'Build a payment service that writes to invoice-store'",
        },
      ]);
    });

    it("plans a deprecated module only when the task's own work asks for it", () => {
      // The task contradicts itself: that is a real conflict for the coordination to catch.
      const slices = decomposeTask(
        "Retire legacy-cache. Build redis-cache and port legacy-cache to it.",
      );
      expect(slices.decisions.map((decision) => decision.target)).toEqual(["legacy-cache"]);
      expect(slices.plan.map((entry) => [entry.module, entry.kind])).toEqual([
        ["redis-cache", "new"],
        ["legacy-cache", "existing"],
      ]);
    });
  });
});

describe("planFromText", () => {
  it("plans the existing modules a slice mentions, in the order it gives them", () => {
    const plan = planFromText(
      "Build a payment service. Update the existing modules it touches so they work with it: invoice-store, legacy-stripe-v1.",
      ["invoice-store", "legacy-stripe-v1"],
    );
    expect(plan.map((entry) => [entry.module, entry.kind])).toEqual([
      ["payment-service", "new"],
      ["invoice-store", "existing"],
      ["legacy-stripe-v1", "existing"],
    ]);
  });

  it("does not take a module's name for a mention of a shorter one", () => {
    expect(
      planFromText("Build a cache dashboard.", ["cache"]).map((entry) => entry.module),
    ).toEqual(["cache-dashboard"]);
  });
});

describe("splitClauses", () => {
  it.each([
    ["Sunset the v1 API and build the v2 API", ["Sunset the v1 API", "build the v2 API"]],
    ["Port X to Y, then build Z", ["Port X to Y", "build Z"]],
    ["Build a search index and a query parser", ["Build a search index and a query parser"]],
  ])("%s", (sentence, clauses) => {
    expect(splitClauses(sentence)).toEqual(clauses);
  });
});

describe("toModuleName", () => {
  it.each([
    ["legacy Stripe v1 module", "legacy-stripe-v1"],
    ["the existing session module", "session"],
    ["a payment service", "payment-service"],
    ["the user account settings page", "account-settings-page"],
    ["moment.js", "moment-js"],
    ["the existing modules", ""],
    ["it", ""],
  ])("%s -> %s", (phrase, name) => {
    expect(toModuleName(phrase)).toBe(name);
  });
});

describe("decisionFromSentence", () => {
  it("reads a deprecation and its target", () => {
    expect(decisionFromSentence("Deprecate the legacy session token in favour of JWT")).toEqual({
      target: "legacy-session-token",
      value: "deprecate",
      content: "Deprecate the legacy session token in favour of JWT.",
    });
  });

  it("reads a keep", () => {
    expect(decisionFromSentence("Keep legacy-cache")?.value).toBe("keep");
    expect(decisionFromSentence("legacy-cache stays")?.value).toBe("keep");
  });

  it("ignores work sentences", () => {
    expect(decisionFromSentence("Build a payment service")).toBeUndefined();
  });
});

describe("moduleFromSentence", () => {
  it("names the module a work sentence asks for", () => {
    expect(moduleFromSentence("Build a payment service on Stripe")).toBe("payment-service");
    expect(moduleFromSentence("Implement the rate limiter for the API")).toBe("rate-limiter");
    expect(moduleFromSentence("Add an API for orders")).toBe("orders-api");
    expect(moduleFromSentence("Addresses should be validated")).toBeUndefined();
    expect(moduleFromSentence("Deprecate X")).toBeUndefined();
  });
});
