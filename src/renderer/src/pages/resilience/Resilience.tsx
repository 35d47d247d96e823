import { Activity } from './Activity';
import { Breakers } from './Breakers';
import { ConnectionStates } from './ConnectionStates';
import { LearnedFixes } from './LearnedFixes';
import { Lockouts } from './Lockouts';
import { QueuesLeasesSessions } from './QueuesLeasesSessions';

export function Resilience() {
  return (
    <>
      <Breakers />
      <ConnectionStates />
      <Lockouts />
      <QueuesLeasesSessions />
      <LearnedFixes />
      <Activity />
    </>
  );
}
