import { createContext, type ReactNode, useContext } from "react";
import { createTheme, type Theme } from "../theme/tokens.js";

const ThemeContext = createContext<Theme>(createTheme());

/** Provides the theme (coloured, or plain under NO_COLOR) to every component below it. */
export function ThemeProvider({
  theme,
  children,
}: {
  readonly theme: Theme;
  readonly children: ReactNode;
}) {
  return <ThemeContext.Provider value={theme}>{children}</ThemeContext.Provider>;
}

/** The current theme (the coloured default when no provider is above). */
export function useTheme(): Theme {
  return useContext(ThemeContext);
}
