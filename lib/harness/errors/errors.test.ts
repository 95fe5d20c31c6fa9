import { HarnessError } from ".";
import {
  coreErrorFamily,
  coreErrorStatuses,
  runErrorFamilyConformance,
} from "./error-family-conformance";

runErrorFamilyConformance("the core's error family", {
  family: coreErrorFamily,
  statuses: coreErrorStatuses,
  failed: new HarnessError({ code: "failed:store", message: "store down" }),
});
