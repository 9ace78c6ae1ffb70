// `npm run bench`: every benchmark, each printing ratios against a baseline measured in the same run.
import { benchStartup } from "./startup.mjs";
import { benchFirstFrame } from "./first-frame.mjs";
import { benchCheckpoints } from "./checkpoints.mjs";
import { benchTools } from "./tools.mjs";
import { benchStateRead } from "./state-read.mjs";
import { benchCompaction } from "./compaction.mjs";
import { benchArtifacts } from "./artifacts.mjs";
import { benchMcpStart } from "./mcp-start.mjs";
import { benchSkillsMemory } from "./skills-memory.mjs";
import { benchSnapshots } from "./snapshots.mjs";
import { benchTeamDatabase } from "./team-database.mjs";
import { benchSearch } from "./search.mjs";

benchStartup();
await benchFirstFrame();
await benchMcpStart();
await benchSkillsMemory();
await benchTools();
await benchCheckpoints();
await benchStateRead();
await benchCompaction();
await benchArtifacts();
await benchSnapshots();
await benchTeamDatabase();
await benchSearch();
