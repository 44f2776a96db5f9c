/** The resources of one simulated region: the shapes the simulated cloud and its tags share. */

export interface Ec2Instance {
  instance_id: string;
  instance_type: string;
  state: "running" | "stopped" | "terminated";
}

export interface EbsVolume {
  volume_id: string;
  size_gb: number;
  attached_to: string | null;
}

export interface NetworkResource {
  resource_id: string;
  kind: "vpc" | "subnet" | "security_group" | "nat_gateway";
}

export interface RegionInventory {
  instances: Ec2Instance[];
  volumes: EbsVolume[];
  network: NetworkResource[];
  /** Tags per resource id (simulated-tags.ts); {} for an untagged resource. */
  tags: Record<string, Record<string, string>>;
}
