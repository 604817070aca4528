import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { describePromotion } from "./promotion-suite.js";

describePromotion("embedded", async () => new EmbeddedStore({ path: ":memory:" }));
