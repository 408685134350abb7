//! The two Schemas in SAS layout, at PDA ["schema", credential, name, [version]].

use crate::error::ProgramError;
use crate::state::discriminator;
use crate::writer::Writer;
use crate::Pubkey;

pub const SCHEMA_SEED: &[u8] = b"schema";

// SAS compact layout type codes.
const U8: u8 = 0;
const U64: u8 = 3;
const I64: u8 = 8;
const BOOL: u8 = 10;
const BYTES: u8 = 13;

pub struct SchemaSpec {
    pub name: &'static [u8],
    /// Part of the Schema's seeds and its last byte: a new layout is a new Schema account.
    pub version: u8,
    pub description: &'static [u8],
    pub layout: &'static [u8],
    pub field_names: &'static [&'static [u8]],
}

pub const ATTESTATION_SCHEMA: SchemaSpec = SchemaSpec {
    name: b"BehaviorAttestation",
    version: 1,
    description: b"One action of an autonomous agent, signed by the agent's key",
    layout: &[U8, BOOL, BYTES, BYTES, BYTES, I64, U64],
    field_names: &[
        b"action_type",
        b"privacy_mode",
        b"action_hash",
        b"agent_signature",
        b"operator",
        b"timestamp",
        b"slot",
    ],
};

pub const BATCH_SCHEMA: SchemaSpec = SchemaSpec {
    name: b"BehaviorBatch",
    // v1 stored every leaf; v2 keeps only the Merkle frontier while leaves are published.
    version: 2,
    description: b"A Merkle commitment to up to 100 actions of an autonomous agent",
    layout: &[BYTES, U8, U8, BYTES, BYTES, I64, U64, U8, BYTES],
    field_names: &[
        b"merkle_root",
        b"item_count",
        b"action_types",
        b"agent_signature",
        b"operator",
        b"timestamp",
        b"slot",
        b"leaves_published",
        b"frontier",
    ],
};

impl SchemaSpec {
    fn field_names_len(&self) -> usize {
        self.field_names.iter().map(|name| 4 + name.len()).sum()
    }

    /// discriminator, credential, name, description, layout, field names, is_paused, version
    pub fn size(&self) -> usize {
        1 + 32
            + (4 + self.name.len())
            + (4 + self.description.len())
            + (4 + self.layout.len())
            + (4 + self.field_names_len())
            + 2
    }

    pub fn write(&self, data: &mut [u8], credential: &Pubkey) -> Result<(), ProgramError> {
        let mut w = Writer::new(data);
        w.u8(discriminator::SCHEMA)?
            .bytes(credential)?
            .vec(self.name)?
            .vec(self.description)?
            .vec(self.layout)?
            .u32(self.field_names_len() as u32)?;
        for name in self.field_names {
            w.vec(name)?;
        }
        w.u8(0)?.u8(self.version)?;
        Ok(())
    }

    /// True when `data` is this Schema of the Credential `credential`.
    pub fn matches(&self, data: &[u8], credential: &Pubkey) -> bool {
        let name_at = 1 + 32;
        data.len() == self.size()
            && data[0] == discriminator::SCHEMA
            && &data[1..name_at] == credential
            && data.get(name_at + 4..name_at + 4 + self.name.len()) == Some(self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_and_field_names_agree() {
        for spec in [&ATTESTATION_SCHEMA, &BATCH_SCHEMA] {
            assert_eq!(spec.layout.len(), spec.field_names.len());
            let mut data = vec![0u8; spec.size()];
            spec.write(&mut data, &[3; 32]).unwrap();
            assert!(spec.matches(&data, &[3; 32]));
            assert!(!spec.matches(&data, &[4; 32]));
            assert_eq!(data[data.len() - 1], spec.version);
        }
        let mut data = vec![0u8; ATTESTATION_SCHEMA.size()];
        ATTESTATION_SCHEMA.write(&mut data, &[3; 32]).unwrap();
        assert!(!BATCH_SCHEMA.matches(&data, &[3; 32]));
    }
}
