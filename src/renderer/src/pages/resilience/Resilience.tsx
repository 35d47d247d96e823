import { Activity } from './Activity';
import { Breakers } from './Breakers';
import { ConnectionStates } from './ConnectionStates';
import { LearnedFixes } from './LearnedFixes';
import { Lockouts } from './Lockouts';
import { QueuesLeasesSessions } from './QueuesLeasesSessions';
import { QuotaWaits } from './QuotaWaits';

export function Resilience() {
  return (
    <>
      <Breakers />
      <ConnectionStates />
      <Lockouts />
      <QuotaWaits />
      <QueuesLeasesSessions />
      <LearnedFixes />
      <Activity />
    </>
  );
}
