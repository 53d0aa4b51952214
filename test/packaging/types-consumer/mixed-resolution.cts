// A CommonJS TypeScript module (.cts, as every .ts file of a `"type": "commonjs"` project) that
// reaches one entry through `require` resolution (the static import) and others through `import`
// resolution (`await import()`), passing values from one to the other (issue 22 item 10: `Types
// have separate declarations of a private property 'definitions'`). Type-checked against the
// built package by test/packaging/declarations.test.ts and by .ci/run's consumer type check.
import { createDoubles, UsageError, type Doubles } from "infra-doubles";

export async function handlerCount(): Promise<number> {
  const doubles: Doubles = createDoubles({ seed: 1 });
  const { mswHandlers } = await import("infra-doubles/msw");
  const { Simulator, UsageError: SameUsageError } = await import("infra-doubles/simulator");
  const { startServer } = await import("infra-doubles/server");
  const sim: InstanceType<typeof Simulator> = doubles.handler.sim; // required -> imported
  const error: UsageError = new SameUsageError("refused"); // imported -> required
  const server = await startServer(() => doubles.handler);
  await server.close();
  return mswHandlers(doubles).length + (sim === doubles.handler.sim ? 0 : 1) + error.message.length + Simulator.name.length;
}
