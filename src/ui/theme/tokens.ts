/**
 * Semantic colour tokens. Components never name a colour directly: they ask the theme for what
 * a thing *is* (an error, a success, a border), so NO_COLOR turns every colour off in one place.
 */
export interface Theme {
  /** False when colours are switched off (NO_COLOR or --no-color): every colour below is undefined. */
  readonly color: boolean;
  readonly text: { readonly primary?: string; readonly muted?: string; readonly accent?: string };
  readonly status: {
    readonly error?: string;
    readonly warning?: string;
    readonly success?: string;
    readonly working?: string;
  };
  readonly border: {
    readonly default?: string;
    readonly naive?: string;
    readonly statewave?: string;
  };
  /** The colour an agent is drawn in: its scenario colour, or none without colour. */
  agent(color: string | undefined): string | undefined;
}

const colouredTheme: Theme = {
  color: true,
  text: { primary: undefined, muted: "gray", accent: "cyan" },
  status: { error: "red", warning: "yellow", success: "green", working: "cyan" },
  border: { default: "gray", naive: "red", statewave: "green" },
  agent: (color) => color,
};

const plainTheme: Theme = {
  color: false,
  text: {},
  status: {},
  border: {},
  agent: () => undefined,
};

/** The theme to draw with. */
export function createTheme(options: { noColor?: boolean } = {}): Theme {
  return options.noColor ? plainTheme : colouredTheme;
}

/**
 * True when colour must be off: `--no-color` was given, or NO_COLOR is set to anything non-empty
 * (https://no-color.org).
 */
export function isColorDisabled(
  env: Readonly<Record<string, string | undefined>>,
  flag?: boolean,
): boolean {
  if (flag) return true;
  const noColor = env.NO_COLOR;
  return noColor !== undefined && noColor !== "";
}
