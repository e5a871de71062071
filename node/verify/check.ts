/** One row of `verify`'s report. */
export interface Check {
  readonly name: string;
  readonly result: "pass" | "warn" | "fail";
  readonly detail: string;
}
