/** The word after `name` on a bench's command line (`--json OUT` gives `OUT`), or undefined when `name` is absent. */
export function optionValue(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}
