// The CDK app (cdk.json: `node src/app.ts`). Stacks and their accounts: build-app.ts, docs/deploy.md.
import { buildApp } from "./build-app.ts";

buildApp().synth();
